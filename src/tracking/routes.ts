import { access, defineRoute } from '../http/route.ts';
import { WorkspaceParams } from '../http/validation.ts';
import { TrackingSwitches } from '../messages/index.ts';
import { readTrackingSettings, writeTrackingSettings } from './settings.ts';

const tags = ['Tracking'];
const path = '/api/workspaces/{workspaceId}/tracking-settings';

export const trackingRoutes = [
  defineRoute({
    method: 'get',
    path,
    operationId: 'trackingSettings.get',
    summary: "The workspace's open and click tracking switches",
    tags,
    access: access.workspace('messages:read'),
    params: WorkspaceParams,
    responses: { 200: { description: 'The switches', schema: TrackingSwitches } },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: await readTrackingSettings(app.db, workspaceId),
    }),
  }),
  defineRoute({
    method: 'put',
    path,
    operationId: 'trackingSettings.put',
    summary: 'Turn open and click tracking on or off for every email of the workspace',
    description:
      'Applies to messages sent from now on. A campaign can turn either off for its own mail ' +
      '(`tracking` on the campaign); it cannot turn on what the workspace turned off.',
    tags,
    access: access.workspace('messages:write'),
    params: WorkspaceParams,
    body: TrackingSwitches,
    responses: { 200: { description: 'The switches', schema: TrackingSwitches } },
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: await writeTrackingSettings(app.db, workspaceId, body),
    }),
  }),
];
