import { access, defineRoute } from '../http/route.ts';
import { WorkspaceParams } from '../http/validation.ts';
import {
  ContactSubscriptionParams,
  idempotencyKeyOf,
  ListMessagesQuery,
  MessageAccepted,
  MessageDetail,
  MessagePage,
  MessageParams,
  PutSubscriptionsBody,
  ReplayedHeader,
  SendHeaders,
  SendMessageBody,
  Subscriptions,
  toHit,
  toMessage,
  toSubscriptions,
} from './schemas.ts';
import {
  createTransactional,
  getMessageDetail,
  getMessageWithTimeline,
  getSubscriptions,
  listMessages,
  putSubscriptions,
} from './service.ts';

const tags = ['Messages'];
const base = '/api/workspaces/{workspaceId}/messages';

export const messageRoutes = [
  defineRoute({
    method: 'get',
    path: base,
    operationId: 'messages.list',
    summary: 'List messages, newest first, filtered by contact, campaign, channel or status',
    tags,
    access: access.workspace('messages:read'),
    params: WorkspaceParams,
    query: ListMessagesQuery,
    responses: { 200: { description: 'A page of messages', schema: MessagePage } },
    handler: async ({ app, workspaceId, query: { page, limit, ...filter } }) => {
      const { rows, total } = await listMessages(app.db, workspaceId, filter, {
        limit,
        offset: (page - 1) * limit,
      });
      return { status: 200, body: { data: rows.map(toMessage), page, limit, total } };
    },
  }),
  defineRoute({
    method: 'post',
    path: base,
    operationId: 'messages.send',
    summary: 'Send a transactional message now (receipts, password resets)',
    description:
      'The message is queued and sent by the worker with the same templates, suppression rules, ' +
      'record and webhooks as campaign mail. Name the recipient by `contactId`, or by `email` (a ' +
      'contact is made when none has it). An `Idempotency-Key` header makes retries safe: a retry ' +
      'with the same key (kept 7 days) sends nothing and answers with the first message.',
    tags,
    access: access.workspace('messages:write'),
    params: WorkspaceParams,
    body: SendMessageBody,
    requestHeaders: SendHeaders,
    responses: {
      202: {
        description: 'Queued: the message id to follow',
        schema: MessageAccepted,
        headers: ReplayedHeader,
      },
    },
    errors: { 404: 'The workspace, or the contactId, does not exist here.' },
    handler: async ({ app, workspaceId, body, req }) => {
      const key = idempotencyKeyOf(req.get('idempotency-key'));
      const { id, replayed } = await app.db.transaction((tx) =>
        createTransactional(app, tx, workspaceId, body, key),
      );
      const { message } = await getMessageWithTimeline(app.db, workspaceId, id);
      return {
        status: 202,
        body: { id, status: message.status },
        ...(replayed ? { headers: { 'Idempotent-Replayed': 'true' } } : {}),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: `${base}/{messageId}`,
    operationId: 'messages.get',
    summary: 'Get a message and its timeline',
    tags,
    access: access.workspace('messages:read'),
    params: MessageParams,
    responses: {
      200: {
        description: 'The message, with its timeline and tracking hits oldest first',
        schema: MessageDetail,
      },
    },
    handler: async ({ app, workspaceId, params }) => {
      const { message, timeline, hits } = await getMessageDetail(app.db, workspaceId, params.messageId);
      return {
        status: 200,
        body: {
          ...toMessage(message),
          rendered: message.rendered,
          timeline: timeline.map((entry) => ({
            type: entry.type,
            detail: entry.detail,
            occurredAt: entry.occurred_at,
          })),
          hits: hits.map(toHit),
        },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/contacts/{contactId}/subscriptions',
    operationId: 'contacts.subscriptions.get',
    summary: "A contact's subscription state per channel, and the global opt-out",
    tags,
    access: access.workspace('contacts:read'),
    params: ContactSubscriptionParams,
    responses: { 200: { description: 'Every channel, and `all`', schema: Subscriptions } },
    handler: async ({ app, workspaceId, params }) => {
      const { contactId, rows } = await getSubscriptions(app.db, workspaceId, params.contactId);
      return { status: 200, body: toSubscriptions(contactId, rows) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/workspaces/{workspaceId}/contacts/{contactId}/subscriptions',
    operationId: 'contacts.subscriptions.update',
    summary: 'Subscribe or unsubscribe a contact, per channel or from everything (`all`)',
    description:
      'An unsubscribe emits `unsubscribe.<channel>` (or `unsubscribe.all`) and exits the contact from ' +
      'active campaigns that only send on that channel. Subscribing again also lifts a hard bounce ' +
      'or complaint. Channels not named are left as they are.',
    tags,
    access: access.workspace('contacts:write'),
    params: ContactSubscriptionParams,
    body: PutSubscriptionsBody,
    responses: { 200: { description: 'The state after the change', schema: Subscriptions } },
    handler: async ({ app, workspaceId, params, body }) => {
      const { contactId, rows } = await app.db.transaction((tx) =>
        putSubscriptions(tx, workspaceId, params.contactId, body.subscriptions),
      );
      return { status: 200, body: toSubscriptions(contactId, rows) };
    },
  }),
];
