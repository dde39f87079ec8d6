// The public inbound receiver. Its body is validated by the service rather than by defineRoute,
// so that an invalid payload is still recorded as a failed receipt of a known endpoint; the
// documented schema is the payload's.
import { z } from 'zod';
import { registry } from '../http/openapi.ts';
import { access, defineRoute } from '../http/route.ts';
import { receiveInbound } from './inbound.ts';
import { InboundParams, InboundPayloadSchema, InboundReceivedSchema } from './schemas.ts';

// Registered explicitly: nothing else references it, and the route's body points at it.
registry.register('InboundWebhookPayload', InboundPayloadSchema);
const DocumentedPayload = z
  .unknown()
  .openapi({ allOf: [{ $ref: '#/components/schemas/InboundWebhookPayload' }] } as never);

export const inboundRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/webhooks/inbound/{endpointId}',
    operationId: 'webhooks.inbound.receive',
    summary: 'Receive a payload from an external system and record it as an event',
    description:
      'The contact is found by contactId, else by email, else created with email, firstName, lastName and ' +
      'phone. When the endpoint has a secret, send `X-Webhook-Signature` (hex HMAC-SHA256 of the raw body ' +
      'keyed with the secret) or Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, ' +
      '`webhook-signature`), as the endpoint’s `signatureScheme` allows; the signature covers the exact ' +
      'bytes received. A repeated `webhook-id` or `Idempotency-Key` returns the first answer and creates ' +
      'nothing; so does a hex-signed body already received within the replay window (recorded as a ' +
      'duplicate). If the endpoint lists `events`, other types are refused with 400.',
    tags: ['Webhooks'],
    access: access.public,
    params: InboundParams,
    body: DocumentedPayload,
    responses: { 200: { description: 'Received and recorded', schema: InboundReceivedSchema } },
    errors: {
      401: 'The endpoint has a secret and the request carries no valid signature.',
      404: 'No such INBOUND endpoint, or it is disabled.',
      413:
        'The body is larger than 1 MB. It is not read; at a known INBOUND endpoint the refusal is recorded ' +
        'as a failed receipt (status 413, `requestBytes`, no body).',
    },
    handler: async ({ app, params, body, req }) => ({
      status: 200,
      body: await receiveInbound(app, {
        endpointId: params.endpointId,
        path: req.originalUrl.split('?')[0],
        rawBody: req.rawBody ?? null,
        body,
        header: (name) => req.get(name),
      }),
    }),
  }),
];
