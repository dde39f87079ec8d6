// Every feature's routes, mounted by app.ts and described in the OpenAPI document.
// A new feature adds its list here.
import { passwordRoutes } from '../accounts/passwordRoutes.ts';
import { accountRoutes } from '../accounts/routes.ts';
import { apiKeyRoutes } from '../apiKeys/routes.ts';
import { campaignRoutes } from '../campaigns/routes.ts';
import { routes as channelRoutes } from '../channels/feature.ts';
import { contactRoutes } from '../contacts/routes.ts';
import { eventRoutes } from '../events/routes.ts';
import { healthRoutes } from '../health/routes.ts';
import { messageRoutes } from '../messages/routes.ts';
import { scoringRoutes } from '../scoring/routes.ts';
import { segmentRoutes } from '../segments/routes.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { invitationRoutes } from '../workspaces/invitationRoutes.ts';
import { workspaceRoutes } from '../workspaces/routes.ts';
import type { RouteDefinition } from './route.ts';

export function allRoutes(): RouteDefinition[] {
  return [
    ...healthRoutes,
    ...accountRoutes,
    ...passwordRoutes,
    ...workspaceRoutes,
    ...invitationRoutes,
    ...apiKeyRoutes,
    ...contactRoutes,
    ...eventRoutes,
    ...campaignRoutes,
    ...segmentRoutes,
    ...scoringRoutes,
    ...webhookRoutes,
    ...messageRoutes,
    ...channelRoutes,
  ];
}
