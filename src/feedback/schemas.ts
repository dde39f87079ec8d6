// The HTTP shapes of provider feedback: what each receiver answers, what providers post (for the
// document: the receivers read the body themselves, so a malformed one is still a receipt), and
// the receipt log.
import { z } from 'zod';
import { FEEDBACK_PROVIDERS } from '../channels/index.ts';
import { pageQuery, paginated, Timestamp, WorkspaceParams } from '../http/validation.ts';
import { EVENT_OUTCOMES } from './queries.ts';

export const FeedbackParams = z.object({
  endpointId: z.string().openapi({ example: 'fbe_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
});

const EventSummary = z
  .object({
    eventId: z.string().nullable().openapi({ description: "The provider's id for the event." }),
    type: z
      .string()
      .openapi({ description: "The provider's name for it, e.g. Bounce, delivered, SpamComplaint." }),
    outcome: z.enum(EVENT_OUTCOMES).openapi({
      description:
        'applied; duplicate (received before: nothing changed); unknown_message (recorded, not ' +
        'applied); ignored (not a bounce, complaint or delivery).',
    }),
    messageId: z.string().nullable(),
  })
  .openapi('EmailFeedbackEventSummary');

export const FeedbackReceivedSchema = z
  .object({ received: z.literal(true), receiptId: z.string(), events: z.array(EventSummary) })
  .openapi('EmailFeedbackReceived', {
    example: {
      received: true,
      receiptId: 'fbr_01JD2Z3K4M5N6P7Q8R9S0T1V2W',
      events: [
        {
          eventId: 'a1b2c3',
          type: 'Bounce',
          outcome: 'applied',
          messageId: 'msg_01JD2Z3K4M5N6P7Q8R9S0T1V2W',
        },
      ],
    },
  });

/** The payloads, loosely: each provider adds fields over time, and every one is kept as received. */
export const SnsEnvelopeSchema = z
  .looseObject({
    Type: z.enum(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']),
    MessageId: z.string(),
    TopicArn: z.string(),
    Message: z.string().openapi({ description: 'For SES: the notification, as JSON text.' }),
    Timestamp: z.string(),
    SignatureVersion: z.enum(['1', '2']),
    Signature: z.string(),
    SigningCertURL: z.string(),
    SubscribeURL: z.string().optional(),
    Token: z.string().optional(),
  })
  .openapi('SnsMessage');

export const SendgridEventsSchema = z
  .array(
    z.looseObject({
      event: z.string(),
      email: z.string().optional(),
      sg_event_id: z.string().optional(),
      sg_message_id: z.string().optional(),
      switchboard_message_id: z.string().optional(),
    }),
  )
  .openapi('SendgridEvents');

export const PostmarkWebhookSchema = z
  .looseObject({
    RecordType: z.string().openapi({ example: 'Bounce' }),
    ID: z.union([z.number(), z.string()]).optional(),
    Type: z.string().optional(),
    MessageID: z.string().optional(),
    Metadata: z.record(z.string(), z.string()).optional(),
  })
  .openapi('PostmarkWebhook');

export const ListReceiptsQuery = z.object({
  provider: z.enum(FEEDBACK_PROVIDERS).optional(),
  ...pageQuery({ defaultLimit: 50, maxLimit: 100 }),
});

export const ReceiptSchema = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    provider: z.enum(FEEDBACK_PROVIDERS),
    responseStatus: z.number().int(),
    outcome: z.string().openapi({
      description:
        'processed, subscription_confirmed, unsubscribe_confirmation, confirmation_failed or rejected.',
    }),
    events: z.array(EventSummary),
    error: z.string().nullable(),
    receivedAt: Timestamp,
  })
  .openapi('EmailFeedbackReceipt');

export const ReceiptPage = paginated(ReceiptSchema).openapi('EmailFeedbackReceiptPage');
export { WorkspaceParams };
