// What each outgoing event type carries in `data` (the outbox's EVENT_DATA, which `emit` is typed
// by), published under the OpenAPI document's `webhooks` section so receivers can generate types.
import { z } from 'zod';
import { registry } from '../http/openapi.ts';
import { Timestamp } from '../http/validation.ts';
import { EVENT_DATA, OUTGOING_EVENT_TYPES } from '../outbox/eventTypes.ts';

export const EventTypeSchema = z.enum(OUTGOING_EVENT_TYPES).openapi('WebhookEventType', {
  description: `The ${OUTGOING_EVENT_TYPES.length} outgoing event types an endpoint can subscribe to.`,
});

/** The schema name for a type's `data`: `contact.score_changed` → `ContactScoreChangedData`. */
function dataSchemaName(type: string): string {
  const words = type.split(/[._]/).map((word) => word[0].toUpperCase() + word.slice(1));
  return `${words.join('')}Data`;
}

const HEADERS_DESCRIPTION =
  'Signed with the endpoint secret: `X-Webhook-Signature` is the hex HMAC-SHA256 of the raw body keyed ' +
  'with the secret string; `webhook-id`, `webhook-timestamp` and `webhook-signature` follow Standard ' +
  'Webhooks (verify with any Standard Webhooks library). `X-Webhook-Delivery` names the attempt.';

function registerEventWebhooks(): void {
  for (const type of OUTGOING_EVENT_TYPES) {
    const data = registry.register(dataSchemaName(type), z.object(EVENT_DATA[type]));
    const body = z.object({ event: z.literal(type), timestamp: Timestamp, data });
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `webhooks.event.${type}`,
      summary: `${type} delivered to subscribed OUTBOUND endpoints`,
      description: HEADERS_DESCRIPTION,
      tags: ['Webhook events'],
      request: { body: { required: true, content: { 'application/json': { schema: body } } } },
      responses: {
        200: { description: 'Any 2xx within the timeout counts as delivered; anything else is retried.' },
        410: { description: 'Gone: the endpoint is disabled and receives nothing more.' },
      },
    });
  }
}

registerEventWebhooks();
