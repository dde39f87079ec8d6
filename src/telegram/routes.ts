import { z } from 'zod';
import { TELEGRAM_WEBHOOK_PATH } from '../channels/index.ts';
import { ContactParams } from '../contacts/index.ts';
import { registry } from '../http/openapi.ts';
import { access, defineRoute } from '../http/route.ts';
import { createTelegramLink } from './linking.ts';
import { receiveUpdate } from './receive.ts';
import { TelegramLinkSchema, UpdateEnvelope, UpdateParams, UpdateReceived } from './schemas.ts';

// The body is checked by the service after the secret (an unauthenticated caller learns nothing
// from validation errors); the document still shows the Update it expects.
registry.register('TelegramUpdate', UpdateEnvelope);
const DocumentedUpdate = z
  .unknown()
  .openapi({ allOf: [{ $ref: '#/components/schemas/TelegramUpdate' }] } as never);

const SECRET_HEADER = 'X-Telegram-Bot-Api-Secret-Token';

export const telegramRoutes = [
  defineRoute({
    method: 'post',
    path: TELEGRAM_WEBHOOK_PATH,
    operationId: 'telegram.updates.receive',
    summary: 'Receive an update from Telegram (the bot’s webhook, set by PUT …/channels/telegram)',
    description:
      `Telegram sends the secret_token given to setWebhook in \`${SECRET_HEADER}\`; it is compared in ` +
      'constant time. The update is stored and answered at once; the worker processes it (linking ' +
      '`/start <token>`, the event `telegram.message_received` for each text message, `my_chat_member` ' +
      'kicked → unsubscribed). A repeated update_id is acknowledged and ignored.',
    tags: ['Channels'],
    access: access.public,
    params: UpdateParams,
    requestHeaders: z.object({ [SECRET_HEADER]: z.string().optional() }),
    body: DocumentedUpdate,
    responses: { 200: { description: 'Stored (or already stored)', schema: UpdateReceived } },
    errors: {
      400: 'The body is not a Telegram update (no integer update_id).',
      401: `No Telegram channel here, or \`${SECRET_HEADER}\` is missing or wrong.`,
    },
    handler: async ({ app, params, body, req }) => ({
      status: 200,
      body: await receiveUpdate(app, params.workspaceId, req.get(SECRET_HEADER), body),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/workspaces/{workspaceId}/contacts/{contactId}/telegram-link',
    operationId: 'contacts.telegramLink.create',
    summary: 'Make a one-time Telegram link that connects a chat to this contact',
    description:
      'Show the URL to the contact (a link or a QR code). Opening it in Telegram and pressing START ' +
      'sends the bot `/start <token>`: the chat is linked to the contact and the bot confirms. The token ' +
      'works once, until expiresAt (TELEGRAM_LINK_TTL_MS); only its hash is stored.',
    tags: ['Contacts'],
    access: access.workspace('contacts:write'),
    params: ContactParams,
    responses: { 201: { description: 'The link', schema: TelegramLinkSchema } },
    errors: {
      404: 'The workspace or the contact does not exist here.',
      409: 'The workspace has no Telegram channel (PUT …/channels/telegram first).',
    },
    handler: async ({ app, workspaceId, params }) => ({
      status: 201,
      body: await createTelegramLink(app, workspaceId, params.contactId),
    }),
  }),
];
