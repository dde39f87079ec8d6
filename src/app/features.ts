// Every feature of the service, in one ordered list: a new feature is one entry here, at its place
// in FEATURE_ORDER (.dependency-cruiser.cjs; test/app/features.unit.test.ts holds the two equal),
// and one import below. The rest of src/app/ reads this list and nothing else of the features.
//
// The list holds each feature's background (background.ts: jobs, worker services, retention,
// effects, what it sets up in a context), which is all the worker loads of the features: its
// start-up, module count and memory do not carry their routes, pages and console sections (the web
// process's). wholeFeatures.ts puts each whole feature (feature.ts) in this list's order, for the web
// process and the CLI.
//
// The list runs from the top of FEATURE_ORDER down (a feature before those it builds on):
// retention prunes in this order, so rows that point at others go before what they point at and
// a cascade from below finds less. Routes, pages, jobs and commands are installed bottom-up
// (`foundationsFirst`): `switchboard --help` lists the commands as one sets an installation up
// (sign-in, admin, workspaces, keys, … import, webhooks). Routes are then sorted by specificity
// (src/http/app.ts), so their order matters only between paths equally specific.

import { background as accounts } from '../accounts/background.ts';
import { background as apiKeys } from '../apiKeys/background.ts';
import { background as audit } from '../audit/background.ts';
import { background as campaigns } from '../campaigns/background.ts';
import { background as channels } from '../channels/background.ts';
import { background as contacts } from '../contacts/background.ts';
import type { FeatureEffects } from '../core/context.ts';
import { background as events } from '../events/background.ts';
import type { FeatureBackground } from '../feature/definition.ts';
import { background as feedback } from '../feedback/background.ts';
import { background as imports } from '../imports/background.ts';
import { background as messages } from '../messages/background.ts';
import { background as publicKeys } from '../publicKeys/background.ts';
import { background as scoring } from '../scoring/background.ts';
import { background as segments } from '../segments/background.ts';
import { background as telegram } from '../telegram/background.ts';
import { background as tracking } from '../tracking/background.ts';
import { background as webhooks } from '../webhooks/background.ts';
import { background as workspaces } from '../workspaces/background.ts';

// Features whose every part is in the web process (routes, pages): their name holds their place.
const forms = { name: 'forms' };
const health = { name: 'health' };
const publicEvents = { name: 'publicEvents' };
const push = { name: 'push' };

/** Top to bottom, as FEATURE_ORDER: each feature may use only those after it. */
export const FEATURES: readonly FeatureBackground[] = [
  webhooks,
  imports,
  push,
  forms,
  publicEvents,
  tracking,
  telegram,
  events,
  scoring,
  campaigns,
  feedback,
  messages,
  segments,
  contacts,
  publicKeys,
  apiKeys,
  workspaces,
  accounts,
  channels,
  health,
  audit,
];

/** Bottom to top: the features others build on first (routes, pages, jobs, commands). */
export const foundationsFirst = <Part extends FeatureBackground>(
  features: readonly Part[],
): readonly Part[] => features.toReversed();

/**
 * The effects every context carries (`app.effects`), each from the one feature above that provides
 * it. A key provided twice, or one that no feature provides, stops the process at start-up.
 */
export function featureEffects(features: readonly FeatureBackground[] = FEATURES): FeatureEffects {
  const effects: Record<string, unknown> = {};
  for (const feature of features)
    for (const [key, value] of Object.entries(feature.effects ?? {})) {
      if (key in effects) throw new Error(`effects.${key}: provided twice (by ${feature.name} and another)`);
      effects[key] = value;
    }
  for (const key of EFFECT_KEYS)
    if (!(key in effects)) throw new Error(`effects.${key}: no feature provides it`);
  return effects as unknown as FeatureEffects;
}

/**
 * Every key of FeatureEffects, written out so that a missing provider is found at start-up: the
 * `satisfies` makes tsc refuse this list when a feature declares a new effect and it is not here.
 */
const EFFECT_KEYS = Object.keys({
  accounts: true,
  contacts: true,
  segments: true,
} satisfies Record<keyof FeatureEffects, true>) as (keyof FeatureEffects)[];

/** The one feature's API key lookup, for authentication (AppContext.apiKeys). */
export function apiKeyLookup() {
  const [lookup, ...more] = FEATURES.flatMap((feature) =>
    feature.apiKeyLookup ? [feature.apiKeyLookup] : [],
  );
  if (!lookup || more.length > 0) throw new Error('exactly one feature must provide apiKeyLookup');
  return lookup;
}
