import { access, defineRoute } from '../../http/route.ts';
import { WorkspaceParams } from '../../http/validation.ts';
import { PutTelegramConfigBody, TelegramConfigSchema } from './schemas.ts';
import {
  deleteTelegramConfig,
  getTelegramConfigRow,
  putTelegramConfig,
  toTelegramConfig,
} from './service.ts';

const tags = ['Channels'];
const path = '/api/workspaces/{workspaceId}/channels/telegram';
const read = access.workspace('channels:read');
const write = access.workspace('channels:write', { admin: true });

export const telegramChannelRoutes = [
  defineRoute({
    method: 'get',
    path,
    operationId: 'channels.telegram.get',
    summary: "Get the workspace's Telegram channel (its bot; the token is never returned)",
    tags,
    access: read,
    params: WorkspaceParams,
    responses: { 200: { description: 'The Telegram channel', schema: TelegramConfigSchema } },
    errors: { 404: 'The workspace does not exist here, or it has no Telegram channel.' },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: toTelegramConfig(await getTelegramConfigRow(app.db, workspaceId)),
    }),
  }),
  defineRoute({
    method: 'put',
    path,
    operationId: 'channels.telegram.put',
    summary: 'Configure the Telegram channel with a bot token',
    description:
      'Checks the token with getMe, points the bot’s webhook (setWebhook) at PUBLIC_URL + ' +
      '/api/telegram/updates/{workspaceId} with a new random secret_token, and stores the token and ' +
      'the secret encrypted (AES-256-GCM under ENCRYPTION_KEY). A new bot replaces the previous one, ' +
      'whose webhook is removed.',
    tags,
    access: write,
    params: WorkspaceParams,
    body: PutTelegramConfigBody,
    responses: { 200: { description: 'The Telegram channel as stored', schema: TelegramConfigSchema } },
    errors: {
      400: 'The request is invalid (problem+json lists each field), or Telegram does not accept the token (`body.botToken`).',
      502: 'Telegram could not be reached, or refused setWebhook (e.g. PUBLIC_URL is not an https URL Telegram accepts); nothing was stored.',
    },
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: toTelegramConfig(await putTelegramConfig(app, workspaceId, body.botToken)),
    }),
  }),
  defineRoute({
    method: 'delete',
    path,
    operationId: 'channels.telegram.delete',
    summary: 'Remove the bot’s webhook and the Telegram channel',
    tags,
    access: write,
    params: WorkspaceParams,
    responses: { 204: { description: 'Removed: Telegram no longer posts updates here' } },
    errors: {
      404: 'The workspace does not exist here, or it has no Telegram channel.',
      502: 'Telegram could not be reached to remove the webhook; the channel is kept, try again.',
    },
    handler: async ({ app, workspaceId }) => {
      await deleteTelegramConfig(app, workspaceId);
      return { status: 204 };
    },
  }),
];
