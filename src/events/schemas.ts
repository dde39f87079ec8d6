// Shapes of events: what ingest accepts (one event, or a batch) and what the API returns.
import { z } from 'zod';
import {
  AnonymousId,
  ContactId,
  ContactSummarySchema,
  Email,
  JsonObject,
  Name,
  Phone,
  text,
} from '../contacts/index.ts';
import { nullableRef, storableInstant, Timestamp, WorkspaceParams } from '../http/validation.ts';

/** Clocks differ: a timestamp up to this far ahead of ours still counts as "now". */
export const CLOCK_SKEW_MS = 60_000;

export const EventType = text(200)
  .transform((value) => value.trim())
  .pipe(z.string().min(1, 'is required'))
  .openapi({
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: '1 to 200 characters; surrounding whitespace is trimmed first.',
    example: 'purchase',
  });

export const IdempotencyKey = text(255)
  .min(1, 'must not be empty')
  .openapi({ description: 'Makes a retry return the first event instead of storing a second one.' });

const PastTimestamp = z.iso
  // abort: the refinements below compare instants, and text that names none would fail them too.
  .datetime({ offset: true, message: 'must be an ISO 8601 timestamp', abort: true })
  .refine(...storableInstant)
  .refine((value) => Date.parse(value) <= Date.now() + CLOCK_SKEW_MS, 'must not be in the future')
  .openapi({
    description:
      'When it happened, for backfills (default: now). Past, or at most ' +
      `${CLOCK_SKEW_MS / 1000} seconds ahead of the server's clock (clock skew); later is a 400.`,
  });

/** Where a tracked event came from: the page and its campaign tags (public events take them too). */
export const trackingFields = {
  sessionId: text(200).optional(),
  pageUrl: text(2048).optional(),
  referrer: text(2048).optional(),
  utmSource: text(200).optional(),
  utmMedium: text(200).optional(),
  utmCampaign: text(200).optional(),
};

export const IngestEventBody = z
  .strictObject({
    id: IdempotencyKey.optional().openapi({
      description: 'Client-chosen idempotency key (like the Idempotency-Key header); not the stored id.',
    }),
    type: EventType,
    contactId: ContactId.optional(),
    email: Email.optional(),
    anonymousId: AnonymousId.optional(),
    firstName: Name.optional(),
    lastName: Name.optional(),
    phone: Phone.optional(),
    metadata: JsonObject.optional(),
    timestamp: PastTimestamp.optional(),
    ...trackingFields,
  })
  .openapi('IngestEventRequest', {
    description:
      'The contact is `contactId` if given, else the one with `email`, else the one with ' +
      '`anonymousId`; missing ones are created (names and phone are used only when creating). ' +
      'Without any identifier the event has no contact.',
  });
export type IngestEventBody = z.output<typeof IngestEventBody>;

export const MAX_BATCH = 1000;

export const IngestBatchBody = z
  .strictObject({
    events: z
      .array(IngestEventBody)
      .min(1, 'must hold at least one event')
      .max(MAX_BATCH, `must hold at most ${MAX_BATCH} events`),
  })
  .openapi('IngestEventBatchRequest');

export const EventSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    timestamp: Timestamp.openapi({
      description: 'When the event happened (the given timestamp, or receipt).',
    }),
    contact: nullableRef(ContactSummarySchema),
    sessionId: z.string().optional(),
    pageUrl: z.string().optional(),
    referrer: z.string().optional(),
    utmSource: z.string().optional(),
    utmMedium: z.string().optional(),
    utmCampaign: z.string().optional(),
  })
  .openapi('Event', { description: 'sessionId, pageUrl, referrer and utm* are present only when set.' });

export const EventBatchResult = z.object({ data: z.array(EventSchema) }).openapi('EventBatchResult');

export const ListEventsQuery = z.object({
  contactId: text(100).optional().openapi({ description: "Only this contact's events." }),
  type: text(200).optional().openapi({ description: 'Only events of this type.' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(50)
    .openapi({ description: 'How many (default 50, maximum 200).' }),
  before: z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 timestamp' })
    .refine(...storableInstant)
    .optional()
    .openapi({ description: 'Only events older than this timestamp.' }),
  beforeId: text(100)
    .optional()
    .openapi({
      description:
        'Only events after this one in the list (older, or as old and before it in id order): pass the ' +
        "last event's id to page back; unlike `before`, it skips none of the events that share its timestamp.",
    }),
});

/** Documented only: routes read the header through `headerKey`, which names it in its 400s. */
export const IdempotencyHeaders = z.object({
  'Idempotency-Key': IdempotencyKey.optional().openapi({
    description:
      'Makes retries safe: a retry with the same key stores nothing and answers with what was ' +
      'first stored (at most 255 characters).',
  }),
});

export const ReplayHeaders = z.object({
  'Idempotent-Replayed': z
    .literal('true')
    .openapi({ description: 'This is a retry: nothing was stored; the body is the first event.' }),
});

export { WorkspaceParams };
