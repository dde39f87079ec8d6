// What each outgoing event type carries in `data`, published under the OpenAPI document's
// `webhooks` section so receivers can generate types. The fields are the served contract; the
// emitters (contacts, segments, campaigns, scoring …) own the values.
import { z } from 'zod';
import { registry } from '../http/openapi.ts';
import { Timestamp } from '../http/validation.ts';
import { OUTGOING_EVENT_TYPES, type OutgoingEventType } from '../outbox/eventTypes.ts';

export const EventTypeSchema = z.enum(OUTGOING_EVENT_TYPES).openapi('WebhookEventType', {
  description: 'The 26 outgoing event types an endpoint can subscribe to.',
});

const id = z.string();
const optionalText = z.string().nullable().optional();
const channel = z.string().openapi({ example: 'email' });

const contactFields = { contactId: id, email: optionalText, firstName: optionalText, lastName: optionalText };

const DATA: Record<OutgoingEventType, Record<string, z.ZodType>> = {
  'contact.created': contactFields,
  'contact.updated': contactFields,
  'contact.deleted': { contactId: id, email: optionalText },
  'contact.merged': {
    primaryContactId: id,
    secondaryContactId: id,
    mergedContact: z.record(z.string(), z.unknown()),
  },
  'contact.score_changed': {
    contactId: id,
    previousScore: z.number().int(),
    score: z.number().int(),
    ruleId: id.nullable().openapi({
      description:
        'The rule that scored; null for decay, merges and imports (an import sends one change per ' +
        'contact: its score before the import and after).',
    }),
  },
  'segment.entered': { segmentId: id, contactId: id },
  'segment.exited': { segmentId: id, contactId: id },
  'campaign.started': { campaignId: id, name: z.string(), status: z.string() },
  'campaign.completed': { campaignId: id, name: z.string(), totalEnrolled: z.number().int() },
  'campaign.contact.enrolled': { campaignId: id, contactId: id },
  'campaign.contact.completed': { campaignId: id, contactId: id, completedAt: Timestamp },
  'message.sent': { contactId: id, channel, messageId: id, status: z.string(), campaignId: id.nullable() },
  'message.delivered': { messageId: id, contactId: id, channel },
  'message.opened': { messageId: id, contactId: id, channel },
  'message.clicked': { messageId: id, contactId: id, channel, url: z.string() },
  'message.bounced': { messageId: id, contactId: id, bounceType: z.enum(['hard', 'soft']) },
  'message.complained': { messageId: id, contactId: id },
  'message.failed': { messageId: id, contactId: id, error: z.string() },
  'unsubscribe.email': { contactId: id, channel, messageId: id.nullable() },
  'unsubscribe.push': { contactId: id, channel },
  'unsubscribe.telegram': { contactId: id, channel },
  'unsubscribe.all': { contactId: id },
  'form.submitted': { formId: id, submissionId: id, fields: z.record(z.string(), z.unknown()) },
  'push.subscribed': { contactId: id, endpoint: z.string() },
  'push.clicked': { contactId: id, messageId: id },
  'event.tracked': { contactId: id, eventType: z.string(), metadata: z.record(z.string(), z.unknown()) },
};

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
    const data = registry.register(dataSchemaName(type), z.object(DATA[type]));
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
