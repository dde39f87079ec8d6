import { z } from 'zod';
import { RetryAfterHeader } from '../http/openapi.ts';
import { access, defineRoute } from '../http/route.ts';
import {
  EventBatchResult,
  EventSchema,
  IdempotencyHeaders,
  IngestBatchBody,
  IngestEventBody,
  ListEventsQuery,
  ReplayHeaders,
  WorkspaceParams,
} from './schemas.ts';
import { headerKey, ingestBatch, ingestOne, listEventsFor } from './service.ts';

const tags = ['Events'];

const IDEMPOTENCY =
  'Send an `Idempotency-Key` header (or body `id`, at most 255 characters) to make retries safe: ' +
  'a retry with the same key within 24 hours (keys are kept 7 days) stores nothing and answers 200 ' +
  'with the first event and `Idempotent-Replayed: true`. The same key with a different body is a 409.';

export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/events',
    operationId: 'events.list',
    summary: 'List events, newest first',
    description:
      'Page back with `beforeId` set to the id of the last event you received: events that share a ' +
      "timestamp (a batch's all do) are neither skipped nor repeated. `before` filters by timestamp.",
    tags,
    access: access.workspace('events:read'),
    params: WorkspaceParams,
    query: ListEventsQuery,
    responses: { 200: { description: 'Events, newest first', schema: z.array(EventSchema) } },
    handler: async ({ app, workspaceId, query }) => ({
      status: 200,
      body: await listEventsFor(app.db, workspaceId, query),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/workspaces/{workspaceId}/events',
    operationId: 'events.create',
    summary: 'Ingest an event: segments, campaign triggers and lead score move before the answer',
    description:
      'The answer comes after segments were re-evaluated, campaign triggers fired and scoring rules ' +
      `applied, all in one transaction. ${IDEMPOTENCY}`,
    tags,
    access: access.workspace('events:write'),
    params: WorkspaceParams,
    body: IngestEventBody,
    requestHeaders: IdempotencyHeaders,
    responses: {
      201: { description: 'The stored event', schema: EventSchema },
      200: {
        description: 'A replay: the event first stored with this idempotency key',
        schema: EventSchema,
        headers: ReplayHeaders,
      },
    },
    errors: {
      404: 'The workspace, or the contactId, does not exist here.',
      409: 'The idempotency key was already used for a request with a different body.',
      503: {
        description:
          'Overloaded: the event waited longer than the service allows (INGEST_MAX_WAIT_MS) for a transaction and was not stored; retry after Retry-After.',
        headers: RetryAfterHeader,
      },
    },
    handler: async ({ app, workspaceId, body, req }) => {
      const { event, replayed } = await ingestOne(app, workspaceId, body, {
        header: headerKey(req.get('idempotency-key')),
        maxWaitMs: app.config.INGEST_MAX_WAIT_MS,
      });
      return replayed
        ? { status: 200, body: event, headers: { 'Idempotent-Replayed': 'true' } }
        : { status: 201, body: event };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/workspaces/{workspaceId}/events/batch',
    operationId: 'events.batch',
    summary: 'Ingest up to 1,000 events in one transaction',
    description:
      'All items are validated first: any invalid item is a 400 whose errors name it ' +
      '(`body.events.3.type`), and nothing is stored. Items are applied in order; each may carry ' +
      'its own `id` as idempotency key, and an `Idempotency-Key` header covers the others by position. ' +
      'Replayed items are returned as first stored.',
    tags,
    access: access.workspace('events:write'),
    params: WorkspaceParams,
    body: IngestBatchBody,
    requestHeaders: IdempotencyHeaders,
    responses: { 201: { description: 'The events, in request order', schema: EventBatchResult } },
    errors: {
      404: 'The workspace, or an item’s contactId, does not exist here (the detail names the item).',
      409:
        'An item reuses an idempotency key (its `id`, or the header’s for its position) with a different ' +
        'body, earlier or in this batch: nothing is stored; `detail` and `errors[0].path` ' +
        '(`body.events.3`) name the item.',
    },
    handler: async ({ app, workspaceId, body, req }) => ({
      status: 201,
      body: await ingestBatch(app, workspaceId, body.events, headerKey(req.get('idempotency-key'))),
    }),
  }),
];
