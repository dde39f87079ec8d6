// Every feature whole (feature.ts: its background and its routes, pages, console sections and
// commands), in the order of the one list (features.ts), for the web process and the CLI's full
// program. The worker never imports this module.
//
// The OpenAPI document lists operations in the order their modules are loaded: first the routes
// the backgrounds already reached (the channels', which their registry holds), then those of the
// imports below, in their order: keep them alphabetical, and keep this module the first to load
// any feature.ts.

import { feature as accounts } from '../accounts/feature.ts';
import { feature as apiKeys } from '../apiKeys/feature.ts';
import { feature as audit } from '../audit/feature.ts';
import { feature as campaigns } from '../campaigns/feature.ts';
import { feature as channels } from '../channels/feature.ts';
import { feature as contacts } from '../contacts/feature.ts';
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
import { FEATURES } from './features.ts';

const WHOLE = [
  accounts,
  apiKeys,
  audit,
  campaigns,
  channels,
  contacts,
  events,
  feedback,
  forms,
  health,
  imports,
  messages,
  publicEvents,
  publicKeys,
  push,
  scoring,
  segments,
  telegram,
  tracking,
  webhooks,
  workspaces,
];

/** FEATURES, each whole: a feature missing here, or here but not there, stops the process at start-up. */
export const WHOLE_FEATURES: readonly Feature[] = FEATURES.map((background) => {
  const whole = WHOLE.find((feature) => feature.name === background.name);
  if (!whole) throw new Error(`${background.name}: its feature.ts is not in src/app/wholeFeatures.ts`);
  return whole;
});
if (WHOLE_FEATURES.length !== WHOLE.length)
  throw new Error('src/app/wholeFeatures.ts: a feature.ts not in the list of src/app/features.ts');
