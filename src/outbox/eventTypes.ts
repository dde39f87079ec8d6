// The outgoing event types a webhook endpoint can subscribe to (the `WebhookEventType` enum of
// /api/openapi) and what each carries in `data`. The data schemas are the served contract (the
// document's `webhooks` section) and the type `emit` checks each emitter's payload against, so
// what is sent and what is documented cannot drift; the emitters (contacts, segments, campaigns,
// scoring …) own the values.
import { z } from 'zod';
import { Timestamp } from '../core/timestamp.ts';

export const OUTGOING_EVENT_TYPES = [
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.merged',
  'contact.score_changed',
  'segment.entered',
  'segment.exited',
  'campaign.started',
  'campaign.completed',
  'campaign.contact.enrolled',
  'campaign.contact.completed',
  'message.sent',
  'message.delivered',
  'message.opened',
  'message.clicked',
  'message.bounced',
  'message.complained',
  'message.failed',
  'unsubscribe.all',
  'form.submitted',
  'push.subscribed',
  'push.clicked',
  'event.tracked',
] as const;

/**
 * Each channel's opt-out, `unsubscribe.<channel>`: the channels declare them (their registry, in
 * the channels feature), which this kit cannot name; the webhooks feature lists and documents them.
 */
export type ChannelEventType = `unsubscribe.${string}`;

export type OutgoingEventType = (typeof OUTGOING_EVENT_TYPES)[number] | ChannelEventType;
type FixedEventType = (typeof OUTGOING_EVENT_TYPES)[number];

const id = z.string();
const optionalText = z.string().nullable().optional();
const channel = z.string().openapi({ example: 'email' });

const contactFields = { contactId: id, email: optionalText, firstName: optionalText, lastName: optionalText };

export const EVENT_DATA = {
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
  'unsubscribe.all': { contactId: id },
  'form.submitted': { formId: id, submissionId: id, fields: z.record(z.string(), z.unknown()) },
  'push.subscribed': { contactId: id, endpoint: z.string() },
  'push.clicked': { contactId: id, messageId: id },
  'event.tracked': {
    contactId: id.nullable().openapi({ description: 'null for an event tracked without any identifier.' }),
    eventType: z.string(),
    metadata: z.record(z.string(), z.unknown()),
  },
} satisfies Record<FixedEventType, Record<string, z.ZodType>>;

/** What a channel's opt-out carries: the channel declares its fields (messageId where it knows one). */
export type ChannelEventData = { contactId: string; channel: string; messageId?: string | null };

/** What an event of type T carries in `data`, as its documented schema takes it. */
export type EventData<T extends OutgoingEventType> = T extends FixedEventType
  ? z.input<z.ZodObject<(typeof EVENT_DATA)[T]>>
  : ChannelEventData;
