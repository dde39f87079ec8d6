import { access, defineRoute } from '../../http/route.ts';
import { WorkspaceParams } from '../../http/validation.ts';
import { PutSmsConfigBody, SmsConfigSchema } from './schemas.ts';
import { deleteSmsConfig, getSmsConfigRow, putSmsConfig, toSmsConfig } from './service.ts';

const tags = ['Channels'];
const path = '/api/workspaces/{workspaceId}/channels/sms';
const read = access.workspace('channels:read');
const write = access.workspace('channels:write', { admin: true });

export const smsChannelRoutes = [
  defineRoute({
    method: 'get',
    path,
    operationId: 'channels.sms.get',
    summary: "Get the workspace's SMS channel (the auth token is never returned)",
    tags,
    access: read,
    params: WorkspaceParams,
    responses: { 200: { description: 'The SMS channel', schema: SmsConfigSchema } },
    errors: { 404: 'The workspace does not exist here, or it has no SMS channel.' },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: toSmsConfig(app.config, await getSmsConfigRow(app.db, workspaceId)),
    }),
  }),
  defineRoute({
    method: 'put',
    path,
    operationId: 'channels.sms.put',
    summary: 'Configure the SMS channel with a Twilio-compatible account',
    description:
      'Checks the account SID and auth token with the provider (GET /2010-04-01/Accounts/{AccountSid}.json) ' +
      'and stores the token encrypted (AES-256-GCM under ENCRYPTION_KEY). Messages are sent from `from` or ' +
      'through `messagingServiceSid`; point the number’s incoming webhook at `inboundUrl` for STOP and START.',
    tags,
    access: write,
    params: WorkspaceParams,
    body: PutSmsConfigBody,
    responses: { 200: { description: 'The SMS channel as stored', schema: SmsConfigSchema } },
    errors: {
      400: 'The request is invalid (problem+json lists each field), or the provider does not accept the credentials (`body.authToken`).',
      502: 'The provider could not be reached or failed; nothing was stored.',
    },
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: toSmsConfig(app.config, await putSmsConfig(app, workspaceId, body)),
    }),
  }),
  defineRoute({
    method: 'delete',
    path,
    operationId: 'channels.sms.delete',
    summary: 'Remove the SMS channel',
    tags,
    access: write,
    params: WorkspaceParams,
    responses: { 204: { description: 'Removed: SMS messages fail as not configured until it is set again' } },
    errors: { 404: 'The workspace does not exist here, or it has no SMS channel.' },
    handler: async ({ app, workspaceId }) => {
      await deleteSmsConfig(app.db, workspaceId);
      return { status: 204 };
    },
  }),
];
