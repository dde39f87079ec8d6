// Every feature of the service, in one ordered list: a new feature is one entry here, at its place
// in FEATURE_ORDER (.dependency-cruiser.cjs; test/app/features.unit.test.ts holds the two equal),
// and one import below. The rest of src/app/ reads this list and nothing else of the features.
//
// Two orders are deliberate:
// - The OpenAPI document lists operations in the order their modules define them, so the order of
//   the imports below is the order of the document: keep them alphabetical, and keep this module
//   the first to load any feature.ts.
// - The list runs from the top of FEATURE_ORDER down (a feature before those it builds on):
//   retention prunes in this order, so rows that point at others go before what they point at and
//   a cascade from below finds less. Routes, pages, jobs and commands are installed bottom-up
//   (`foundationsFirst`): `switchboard --help` lists the commands as one sets an installation up
//   (sign-in, admin, workspaces, keys, … import, webhooks). Routes are then sorted by specificity
//   (src/http/app.ts), so their order matters only between paths equally specific.

import { feature as accounts } from '../accounts/feature.ts';
import { feature as apiKeys } from '../apiKeys/feature.ts';
import { feature as audit } from '../audit/feature.ts';
import { feature as campaigns } from '../campaigns/feature.ts';
import { feature as channels } from '../channels/feature.ts';
import { feature as contacts } from '../contacts/feature.ts';
import type { FeatureEffects } from '../core/context.ts';
import { feature as events } from '../events/feature.ts';
import type { Feature } from '../feature/definition.ts';
import { feature as feedback } from '../feedback/feature.ts';
import { feature as forms } from '../forms/feature.ts';
import { feature as health } from '../health/feature.ts';
import { feature as imports } from '../imports/feature.ts';
import { feature as messages } from '../messages/feature.ts';
import { feature as publicEvents } from '../publicEvents/feature.ts';
import { feature as publicKeys } from '../publicKeys/feature.ts';
import { feature as push } from '../push/feature.ts';
import { feature as scoring } from '../scoring/feature.ts';
import { feature as segments } from '../segments/feature.ts';
import { feature as telegram } from '../telegram/feature.ts';
import { feature as tracking } from '../tracking/feature.ts';
import { feature as webhooks } from '../webhooks/feature.ts';
import { feature as workspaces } from '../workspaces/feature.ts';

/** Top to bottom, as FEATURE_ORDER: each feature may use only those after it. */
export const FEATURES: readonly Feature[] = [
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
export const foundationsFirst = (): readonly Feature[] => FEATURES.toReversed();

/**
 * The effects every context carries (`app.effects`), each from the one feature above that provides
 * it. A key provided twice, or one that no feature provides, stops the process at start-up.
 */
export function featureEffects(features: readonly Feature[] = FEATURES): FeatureEffects {
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
