// Webhook endpoint management and the delivery log. Reading needs any member (or webhooks:read);
// changing needs an ADMIN session (or webhooks:write).
import { z } from 'zod';
import { access, defineRoute } from '../http/route.ts';
import { WorkspaceParams } from '../http/validation.ts';
import { inboundRoutes } from './inboundRoutes.ts';
import {
  CreateEndpointBody,
  DeliveryPageSchema,
  DeliveryParams,
  EndpointParams,
  EndpointSchema,
  EndpointWithSecretSchema,
  ListDeliveriesQuery,
  ListedEndpointSchema,
  RetryAcceptedSchema,
  RotatedSecretSchema,
  UpdateEndpointBody,
} from './schemas.ts';
import {
  changeEndpoint,
  createEndpoint,
  listDeliveryPage,
  listEndpoints,
  removeEndpoint,
  retryDelivery,
  rotateSecret,
} from './service.ts';

const tags = ['Webhooks'];
const read = access.workspace('webhooks:read');
const write = access.workspace('webhooks:write', { admin: true });
const BASE = '/api/workspaces/{workspaceId}/webhooks';

const endpointRoutes = [
  defineRoute({
    method: 'get',
    path: BASE,
    operationId: 'webhooks.list',
    summary: 'List webhook endpoints with their delivery counts',
    tags,
    access: read,
    params: WorkspaceParams,
    responses: {
      200: { description: 'Every endpoint, oldest first', schema: z.array(ListedEndpointSchema) },
    },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: await listEndpoints(app.db, workspaceId),
    }),
  }),
  defineRoute({
    method: 'post',
    path: BASE,
    operationId: 'webhooks.create',
    summary: 'Create an OUTBOUND or INBOUND endpoint; its secret is returned only here',
    description:
      'OUTBOUND endpoints receive a signed POST for every subscribed event (omitted or empty `events`: all ' +
      'types). INBOUND endpoints accept POST /api/webhooks/inbound/{id} and record each payload as an event.',
    tags,
    access: write,
    params: WorkspaceParams,
    body: CreateEndpointBody,
    responses: {
      201: { description: 'The endpoint and its signing secret', schema: EndpointWithSecretSchema },
    },
    handler: async ({ app, workspaceId, body }) => ({
      status: 201,
      body: await createEndpoint(app.db, app.config, workspaceId, body),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: `${BASE}/{webhookId}`,
    operationId: 'webhooks.update',
    summary: 'Change name, url, events or active',
    description:
      'active false stops deliveries: attempts still queued are recorded as skipped. active true resumes ' +
      'delivery of new events and clears a reason the service gave for disabling the endpoint.',
    tags,
    access: write,
    params: EndpointParams,
    body: UpdateEndpointBody,
    responses: { 200: { description: 'The updated endpoint', schema: EndpointSchema } },
    handler: async ({ app, workspaceId, params, body }) => ({
      status: 200,
      body: await changeEndpoint(app.db, app.config, workspaceId, params.webhookId, body),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: `${BASE}/{webhookId}`,
    operationId: 'webhooks.delete',
    summary: 'Delete an endpoint and all its delivery records',
    tags,
    access: write,
    params: EndpointParams,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ app, workspaceId, params }) => {
      await removeEndpoint(app.db, workspaceId, params.webhookId);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${BASE}/{webhookId}/rotate-secret`,
    operationId: 'webhooks.rotateSecret',
    summary: 'Replace the signing secret; the old one keeps signing alongside for 24 hours',
    tags,
    access: write,
    params: EndpointParams,
    bodyRequired: false,
    responses: {
      200: { description: 'The endpoint and its new secret, shown only here', schema: RotatedSecretSchema },
    },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: await rotateSecret(app.db, workspaceId, params.webhookId),
    }),
  }),
];

const deliveryRoutes = [
  defineRoute({
    method: 'get',
    path: `${BASE}/deliveries`,
    operationId: 'webhooks.deliveries.list',
    summary: 'List delivery records (one per attempt, outbound and inbound), newest first',
    tags,
    access: read,
    params: WorkspaceParams,
    query: ListDeliveriesQuery,
    responses: { 200: { description: 'A page of delivery records', schema: DeliveryPageSchema } },
    handler: async ({ app, workspaceId, query }) => {
      const { page, limit, ...filter } = query;
      return { status: 200, body: await listDeliveryPage(app.db, workspaceId, filter, { page, limit }) };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${BASE}/deliveries/{deliveryId}/retry`,
    operationId: 'webhooks.deliveries.retry',
    summary: 'Send the delivery’s message again now, as a manual attempt',
    tags,
    access: write,
    params: DeliveryParams,
    bodyRequired: false,
    responses: { 202: { description: 'Queued; the id of the new attempt', schema: RetryAcceptedSchema } },
    description:
      'The attempt is signed afresh and goes to the endpoint’s URL as it is now; its record shows that ' +
      '`url`. When the URL changed since the retried delivery, only a signed-in ADMIN may retry (an API ' +
      'key gets 403): the stored payload would otherwise follow whoever changed the URL.',
    errors: {
      403: 'As for every route; also: the endpoint’s URL changed since this delivery and the caller is not a signed-in ADMIN.',
      409: 'The delivery was inbound (only outbound ones can be retried), or its endpoint is disabled.',
    },
    handler: async ({ app, workspaceId, params, principal }) => ({
      status: 202,
      body: await retryDelivery(app.db, workspaceId, params.deliveryId, {
        signedInAdmin: principal.kind === 'session' && principal.role === 'ADMIN',
      }),
    }),
  }),
];

export const webhookRoutes = [...endpointRoutes, ...deliveryRoutes, ...inboundRoutes];
