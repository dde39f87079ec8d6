// The HTTP shapes of messages and subscriptions.
import { z } from 'zod';
import { CHANNEL_REGISTRY, type ChannelDefinition } from '../channels/index.ts';
import { ValidationError } from '../core/errors.ts';
import { pageQuery, paginated, Timestamp, WorkspaceParams } from '../http/validation.ts';
import { CHANNELS, MESSAGE_STATUSES, type MessageRow, RenderedContent } from './rows.ts';
import { OPT_OUT_REASONS, SUBSCRIPTION_CHANNELS, type SubscriptionRow } from './subscriptionQueries.ts';
import { HIT_CLASSES, type HitRow, hitClass } from './timelineQueries.ts';

const nullableId = z.string().nullable();

export const MessageSchema = z
  .object({
    id: z.string().openapi({ example: 'msg_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
    contactId: z.string(),
    channel: z.enum(CHANNELS),
    campaignId: nullableId,
    enrollmentId: nullableId,
    stepKey: nullableId.openapi({ description: "The campaign step's path, e.g. `3.then.0`." }),
    status: z.enum(MESSAGE_STATUSES),
    subject: z
      .string()
      .openapi({ description: 'The subject template (email), or the title template (push).' }),
    renderedSubject: z
      .string()
      .nullable()
      .openapi({
        description:
          'The subject as sent (email), or the title (push); null until the message is rendered, and for ' +
          'Telegram. The bodies are in `rendered` of the single message.',
        example: 'Welcome, Ada!',
      }),
    recipient: z
      .string()
      .nullable()
      .openapi({
        description:
          'The address (email) or chat id (Telegram) it was sent to, or, when suppressed, the one it was ' +
          "for (null when the contact has none; push goes to each of the contact's browsers).",
      }),
    error: z.string().nullable().openapi({
      description:
        'Why it failed, bounced or was suppressed (e.g. `unsubscribed from email`, `hard bounce`).',
    }),
    providerId: z.string().nullable(),
    attempts: z.number().int(),
    nextAttemptAt: Timestamp.nullable(),
    createdAt: Timestamp,
    sentAt: Timestamp.nullable(),
    updatedAt: Timestamp,
  })
  .openapi('Message');

export const TimelineEntry = z
  .object({
    type: z.string().openapi({ example: 'sent' }),
    detail: z.record(z.string(), z.unknown()),
    occurredAt: Timestamp,
  })
  .openapi('MessageTimelineEntry');

/** Open and click tracking on or off: a workspace's setting, and each campaign's. */
export const TrackingSwitches = z
  .strictObject({
    opens: z.boolean().openapi({ description: 'Add the open pixel to the HTML.' }),
    clicks: z.boolean().openapi({ description: 'Rewrite web links to tracked ones (and add the honeypot).' }),
  })
  .openapi('TrackingSwitches', {
    description:
      'A kind of tracking is added to an email only when both its workspace and its campaign allow it.',
  });

export const TrackingHit = z
  .object({
    id: z.string(),
    kind: z.enum(['open', 'click', 'honeypot']),
    url: z.string().nullable().openapi({ description: 'The link clicked.' }),
    human: z.boolean(),
    class: z.enum(HIT_CLASSES).openapi({
      description:
        'human: a person; proxy: a privacy proxy loaded the pixel (Apple Mail Privacy Protection, Gmail, ' +
        'Yahoo), neither a person nor a scanner; machine: anything else (scanners, link checkers, bots).',
    }),
    reasons: z.array(z.string()).openapi({
      description:
        "Why the hit is not counted as a person's (empty for a person): head_request, prefetch, " +
        'no_user_agent, bot_user_agent, mail_proxy, security_gateway, link_checker, too_soon, ' +
        'many_links_at_once, honeypot.',
    }),
    method: z.string(),
    userAgent: z.string().nullable(),
    occurredAt: Timestamp,
    classifiedAt: Timestamp.nullable().openapi({
      description: 'When the worker settled the class (null: only the request has been judged yet).',
    }),
  })
  .openapi('TrackingHit');

const Rendered = RenderedContent.nullable().openapi({
  description:
    'What was rendered and handed to the channel at the last attempt, as the contact got it; null ' +
    'when nothing was (queued, suppressed, a template error). Kept with the message, erased with it ' +
    'and with its contact.',
});

export const MessageDetail = MessageSchema.extend({
  rendered: Rendered,
  timeline: z.array(TimelineEntry),
  hits: z
    .array(TrackingHit)
    .openapi({ description: 'Every open and click hit, oldest first, with its class.' }),
}).openapi('MessageDetail');
export const MessagePage = paginated(MessageSchema).openapi('MessagePage');

export const ListMessagesQuery = z.object({
  contactId: z.string().optional(),
  campaignId: z.string().optional(),
  channel: z.enum(CHANNELS).optional(),
  status: z.enum(MESSAGE_STATUSES).optional(),
  ...pageQuery({ defaultLimit: 50, maxLimit: 200 }),
});

export const MessageParams = WorkspaceParams.extend({ messageId: z.string() });

const SendCommon = {
  contactId: z.string().min(1).optional(),
  email: z
    .email()
    .max(320)
    .transform((email) => email.trim().toLowerCase())
    .optional(),
  data: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Template variables.' }),
  ignoreUnsubscribe: z
    .boolean()
    .optional()
    .openapi({
      description:
        'Send even to a contact who unsubscribed (messages the law allows: receipts, password resets). ' +
        'Hard bounces and complaints are never bypassed.',
    }),
};

/** The channels that take one-off messages, each with its content fields (ChannelDefinition.transactional). */
const TRANSACTIONAL = CHANNEL_REGISTRY.flatMap((channel: ChannelDefinition) =>
  channel.transactional ? [{ name: channel.name, content: channel.transactional }] : [],
);

const SendVariants = TRANSACTIONAL.map(({ name, content }) =>
  content.fields.extend({ channel: z.literal(name), ...SendCommon }),
) as unknown as [
  z.ZodObject<{ channel: z.ZodLiteral<string> }>,
  ...z.ZodObject<{ channel: z.ZodLiteral<string> }>[],
];

export const SendMessageBody = z
  .discriminatedUnion('channel', SendVariants, {
    error: `channel must be one of ${TRANSACTIONAL.map(({ name }) => `"${name}"`).join(', ')}`,
  })
  .superRefine((raw, ctx) => {
    const body = raw as { contactId?: string; email?: string; channel: string };
    if ((body.contactId === undefined) === (body.email === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['contactId'],
        message: 'give exactly one of contactId and email',
      });
    }
    const content = TRANSACTIONAL.find(({ name }) => name === body.channel)?.content;
    for (const problem of content?.problems?.(body) ?? []) {
      ctx.addIssue({ code: 'custom', path: [problem.path], message: problem.message });
    }
  })
  .openapi('SendMessage');

export const MessageAccepted = z
  .object({ id: z.string(), status: z.enum(MESSAGE_STATUSES) })
  .openapi('MessageAccepted');

// The same rule as events' idempotency keys (1–255 characters); events sit above messages in the
// feature order, so the rule is stated here rather than imported.
const IdempotencyKey = z.string().min(1, 'must not be empty').max(255, 'must be at most 255 characters');

/** The Idempotency-Key header, or a 400 naming it. */
export function idempotencyKeyOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = IdempotencyKey.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    parsed.error.issues.map((issue) => ({ path: 'header.idempotency-key', message: issue.message })),
  );
}

export const SendHeaders = z.object({
  'Idempotency-Key': IdempotencyKey.optional().openapi({
    description: 'A retry with the same key sends nothing and answers with the first message.',
  }),
});

export const ReplayedHeader = z.object({
  'Idempotent-Replayed': z.literal('true').optional().openapi({ description: 'Present on a retry.' }),
});

export function toMessage(row: MessageRow) {
  return {
    id: row.id,
    contactId: row.contact_id,
    channel: row.channel,
    campaignId: row.campaign_id,
    enrollmentId: row.enrollment_id,
    stepKey: row.step_key,
    status: row.status,
    subject: row.template.subject,
    renderedSubject: row.rendered_subject,
    recipient: row.recipient,
    error: row.error,
    providerId: row.provider_id,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    sentAt: row.sent_at,
    updatedAt: row.updated_at,
  };
}

export function toHit(row: z.infer<typeof HitRow>) {
  return {
    id: row.id,
    kind: row.kind,
    url: row.url,
    human: row.human,
    class: hitClass(row),
    reasons: row.reasons,
    method: row.method,
    userAgent: row.user_agent,
    occurredAt: row.occurred_at,
    classifiedAt: row.classified_at,
  };
}

// Subscriptions

export const SubscriptionState = z
  .object({
    channel: z.enum(SUBSCRIPTION_CHANNELS),
    status: z.enum(['subscribed', 'unsubscribed']),
    reason: z.enum(OPT_OUT_REASONS).nullable(),
    messageId: z.string().nullable(),
    changedAt: Timestamp.nullable(),
  })
  .openapi('SubscriptionState');

export const Subscriptions = z
  .object({ contactId: z.string(), subscriptions: z.array(SubscriptionState) })
  .openapi('ContactSubscriptions', {
    description:
      'One entry per channel; `all` is the global opt-out. A channel never changed is `subscribed`.',
  });

export const PutSubscriptionsBody = z
  .strictObject({
    subscriptions: z
      .array(
        z.strictObject({
          channel: z.enum(SUBSCRIPTION_CHANNELS),
          status: z.enum(['subscribed', 'unsubscribed']),
        }),
      )
      .min(1)
      .max(SUBSCRIPTION_CHANNELS.length),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.subscriptions.forEach((item, index) => {
      if (seen.has(item.channel)) {
        ctx.addIssue({ code: 'custom', path: ['subscriptions', index, 'channel'], message: 'named twice' });
      }
      seen.add(item.channel);
    });
  })
  .openapi('PutSubscriptions');

export const ContactSubscriptionParams = WorkspaceParams.extend({ contactId: z.string() });

export function toSubscriptions(contactId: string, rows: readonly SubscriptionRow[]) {
  const byChannel = new Map(rows.map((row) => [row.channel, row]));
  return {
    contactId,
    subscriptions: SUBSCRIPTION_CHANNELS.map((channel) => {
      const row = byChannel.get(channel);
      return {
        channel,
        status: row?.status ?? ('subscribed' as const),
        reason: row?.status === 'unsubscribed' ? row.reason : null,
        messageId: row?.message_id ?? null,
        changedAt: row?.changed_at ?? null,
      };
    }),
  };
}
