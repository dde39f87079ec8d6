import { access, defineRoute } from '../../http/route.ts';
import { WorkspaceParams } from '../../http/validation.ts';
import { PushConfigSchema, PutPushConfigBody } from './schemas.ts';
import { getPushConfigRow, presentPushConfig, putPushConfig, removePushConfig } from './service.ts';

const tags = ['Channels'];
const path = '/api/workspaces/{workspaceId}/channels/push';
const read = access.workspace('channels:read');
const write = access.workspace('channels:write', { admin: true });

export const pushChannelRoutes = [
  defineRoute({
    method: 'get',
    path,
    operationId: 'channels.push.get',
    summary: "Get the workspace's web push channel and its VAPID public key",
    tags,
    access: read,
    params: WorkspaceParams,
    responses: { 200: { description: 'The push channel', schema: PushConfigSchema } },
    errors: { 404: 'The workspace does not exist here, or it has no push channel.' },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: await presentPushConfig(app.db, await getPushConfigRow(app.db, workspaceId)),
    }),
  }),
  defineRoute({
    method: 'put',
    path,
    operationId: 'channels.push.put',
    summary: 'Configure web push: the VAPID subject; the key pair is made on the first PUT',
    description:
      'The first PUT generates the VAPID key pair; its private key is stored encrypted (AES-256-GCM ' +
      'under ENCRYPTION_KEY) and never returned. Later PUTs change the subject and keep the pair, ' +
      'because every browser subscription is bound to the public key (DELETE and PUT again for a new pair).',
    tags,
    access: write,
    params: WorkspaceParams,
    body: PutPushConfigBody,
    responses: { 200: { description: 'The push channel as stored', schema: PushConfigSchema } },
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: await presentPushConfig(app.db, await putPushConfig(app.db, workspaceId, body)),
    }),
  }),
  defineRoute({
    method: 'delete',
    path,
    operationId: 'channels.push.delete',
    summary: 'Remove the push channel, its key pair and every browser subscription made with it',
    tags,
    access: write,
    params: WorkspaceParams,
    responses: { 204: { description: 'Removed' } },
    errors: { 404: 'The workspace does not exist here, or it has no push channel.' },
    handler: async ({ app, workspaceId }) => {
      await removePushConfig(app.db, workspaceId);
      return { status: 204 };
    },
  }),
];
