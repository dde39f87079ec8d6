// Every feature's routes, mounted by the web app in this order (src/http/app.ts sorts them by
// specificity) and described in the OpenAPI document. A new feature adds its list here.
import type { RouteDefinition } from '../http/route.ts';
import {
  accounts,
  apiKeys,
  campaigns,
  channels,
  contacts,
  events,
  feedback,
  forms,
  health,
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
} from './features.ts';

export function allRoutes(): RouteDefinition[] {
  return [
    ...health.routes,
    ...accounts.routes,
    ...workspaces.routes,
    ...apiKeys.routes,
    ...publicKeys.routes,
    ...contacts.routes,
    ...events.routes,
    ...campaigns.routes,
    ...channels.routes,
    ...segments.routes,
    ...scoring.routes,
    ...webhooks.routes,
    ...messages.routes,
    ...publicEvents.routes,
    ...push.routes,
    ...forms.routes,
    ...feedback.routes,
    ...tracking.routes,
    ...telegram.routes,
  ];
}
