// Every feature, as the composition layer sees it: each one's feature.ts (routes, jobs, commands,
// pages, and what it hands to the features below it). A new feature is added here and then to the
// lists in routes.ts, jobs.ts and program.ts.
//
// The OpenAPI document lists operations in the order their modules define them, so the order of
// these imports is the order of the document: keep it (alphabetical) and keep this module the
// first to load any feature.ts.
import * as accounts from '../accounts/feature.ts';
import * as apiKeys from '../apiKeys/feature.ts';
import * as campaigns from '../campaigns/feature.ts';
import * as channels from '../channels/feature.ts';
import * as contacts from '../contacts/feature.ts';
import * as events from '../events/feature.ts';
import * as feedback from '../feedback/feature.ts';
import * as forms from '../forms/feature.ts';
import * as health from '../health/feature.ts';
import * as imports from '../imports/feature.ts';
import * as messages from '../messages/feature.ts';
import * as publicEvents from '../publicEvents/feature.ts';
import * as publicKeys from '../publicKeys/feature.ts';
import * as push from '../push/feature.ts';
import * as scoring from '../scoring/feature.ts';
import * as segments from '../segments/feature.ts';
import * as telegram from '../telegram/feature.ts';
import * as tracking from '../tracking/feature.ts';
import * as webhooks from '../webhooks/feature.ts';
import * as workspaces from '../workspaces/feature.ts';

export {
  accounts,
  apiKeys,
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
};
