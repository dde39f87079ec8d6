// What each outgoing event type carries in `data` (the outbox's EVENT_DATA, which `emit` is typed
// by), published under the OpenAPI document's `webhooks` section so receivers can generate types.
import { z } from 'zod';
import { CHANNEL_EVENTS } from '../channels/index.ts';
import { registry } from '../http/openapi.ts';
import { Timestamp } from '../http/validation.ts';
import { EVENT_DATA, OUTGOING_EVENT_TYPES } from '../outbox/eventTypes.ts';

const channelEventData = new Map<string, Record<string, z.ZodType>>(
  CHANNEL_EVENTS.map((event) => [event.type, event.data]),
);

/**
 * Every outgoing event type: the outbox's, with each registered channel's `unsubscribe.<channel>`
 * before `unsubscribe.all`.
 */
export const EVENT_TYPES: readonly [string, ...string[]] = OUTGOING_EVENT_TYPES.flatMap((type) =>
  type === 'unsubscribe.all' ? [...channelEventData.keys(), type] : [type],
) as [string, ...string[]];

const dataOf = (type: string) => channelEventData.get(type) ?? EVENT_DATA[type as keyof typeof EVENT_DATA];

export const EventTypeSchema = z.enum(EVENT_TYPES).openapi('WebhookEventType', {
  description: `The ${EVENT_TYPES.length} outgoing event types an endpoint can subscribe to.`,
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
  for (const type of EVENT_TYPES) {
    const data = registry.register(dataSchemaName(type), z.object(dataOf(type)));
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
