// Request and response schemas of the webhook routes. Rules that depend on configuration (https
// only in production, private addresses) are checked in the service, which knows the config.
import { z } from 'zod';
import { emailAddress } from '../http/email.ts';
import {
  pageQuery,
  paginated,
  QueryBoolean,
  requireAChange,
  Timestamp,
  WorkspaceParams,
} from '../http/validation.ts';
import { EventTypeSchema } from './eventSchemas.ts';

export const DirectionSchema = z.enum(['INBOUND', 'OUTBOUND']).openapi('WebhookDirection');

export const SignatureSchemeSchema = z.enum(['hex', 'standard', 'either']).openapi('InboundSignatureScheme', {
  description:
    'Which signatures an INBOUND endpoint accepts. `hex`: `X-Webhook-Signature`, the hex HMAC-SHA256 of the ' +
    'body (the body cannot be altered, but a captured request can be sent again; a repeat of the same body ' +
    'within the replay window creates nothing). `standard`: Standard Webhooks only (`webhook-id`, ' +
    '`webhook-timestamp`, `webhook-signature`): the id and a timestamp within 5 minutes are signed, so a ' +
    'captured request cannot be replayed later or under another id. `either` (default): both.',
});

const Name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

export const WebhookUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL, e.g. https://example.com/hooks')
  .refine((value) => !URL.canParse(value) || new URL(value).username === '', {
    message: 'must not carry credentials (user:password@); put secrets in the path or verify the signature',
  })
  .openapi({ format: 'uri', example: 'https://example.com/hooks/switchboard' });

// OUTBOUND endpoints subscribe to the outgoing types (EventTypeSchema); an INBOUND endpoint's list names the
// event types it accepts from its sender (any ingestible type), so the check depends on direction.
const EventName = z.string().trim().min(1, 'must not be empty').max(200);
const Events = z
  .array(z.union([EventTypeSchema, EventName]), { error: 'must be an array of event types' })
  .max(200)
  .transform((types) => [...new Set(types)])
  .openapi({
    description:
      'OUTBOUND: subscribed WebhookEventTypes. INBOUND: the event types accepted from the sender. ' +
      'Omitted or empty means every type.',
  });

const KNOWN_TYPES = new Set<string>(EventTypeSchema.options);

/** Issues for OUTBOUND subscriptions that name no known type (for a body parsed without context). */
export function unknownEventTypeIssues(events: readonly string[]) {
  return events.flatMap((type, index) =>
    KNOWN_TYPES.has(type)
      ? []
      : [
          {
            path: ['events', index],
            message: `unknown event type "${type}"; expected one of ${EventTypeSchema.options.join(', ')}`,
          },
        ],
  );
}

export const CreateEndpointBody = z
  .strictObject({
    name: Name.optional().openapi({
      description: 'Defaults to the URL host (OUTBOUND) or "Inbound endpoint".',
    }),
    url: WebhookUrl.optional().openapi({ description: 'Required for OUTBOUND; not allowed for INBOUND.' }),
    events: Events.optional(),
    direction: DirectionSchema.default('OUTBOUND'),
    active: z.boolean().default(true),
    signed: z
      .boolean()
      .default(true)
      .openapi({
        description:
          'INBOUND only: false creates an endpoint without a secret that accepts unsigned requests. ' +
          'OUTBOUND endpoints are always signed.',
      }),
    signatureScheme: SignatureSchemeSchema.optional().openapi({
      description: 'INBOUND only; default `either`, which also accepts the hex `X-Webhook-Signature`.',
    }),
  })
  .superRefine((body, context) => {
    if (body.direction === 'OUTBOUND' && body.url === undefined)
      context.addIssue({ code: 'custom', path: ['url'], message: 'is required for an OUTBOUND endpoint' });
    if (body.direction === 'INBOUND' && body.url !== undefined)
      context.addIssue({ code: 'custom', path: ['url'], message: 'applies to OUTBOUND endpoints only' });
    if (body.direction === 'OUTBOUND' && body.signatureScheme !== undefined)
      context.addIssue({
        code: 'custom',
        path: ['signatureScheme'],
        message: 'applies to INBOUND endpoints only (OUTBOUND requests carry both signatures)',
      });
    if (body.direction === 'OUTBOUND' && !body.signed)
      context.addIssue({ code: 'custom', path: ['signed'], message: 'OUTBOUND endpoints are always signed' });
    if (body.direction === 'OUTBOUND')
      for (const issue of unknownEventTypeIssues(body.events ?? []))
        context.addIssue({ code: 'custom', ...issue });
  })
  .openapi('CreateWebhookEndpointRequest');
export type CreateEndpointInput = z.output<typeof CreateEndpointBody>;

export const UpdateEndpointBody = requireAChange(
  z
    .strictObject({
      name: Name,
      url: WebhookUrl,
      events: Events,
      active: z.boolean(),
      signatureScheme: SignatureSchemeSchema.openapi({ description: 'INBOUND only.' }),
    })
    .partial(),
).openapi('UpdateWebhookEndpointRequest');
export type UpdateEndpointInput = z.output<typeof UpdateEndpointBody>;

export const EndpointSchema = z
  .object({
    id: z.string().openapi({ example: 'whe_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
    name: z.string(),
    url: z.string().nullable().openapi({ description: 'Null for INBOUND endpoints.' }),
    events: z.array(z.string()).openapi({ description: 'Empty: every type.' }),
    direction: DirectionSchema,
    signatureScheme: SignatureSchemeSchema.nullable().openapi({
      description: 'Null for OUTBOUND endpoints.',
    }),
    active: z.boolean().openapi({
      description:
        'Re-enabled, it receives the events emitted from then on (none from while it was disabled).',
    }),
    disabledReason: z.string().nullable().openapi({
      description: 'Why the service disabled the endpoint (410 Gone, or failing for days); null otherwise.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('WebhookEndpoint', {
    description:
      'An OUTBOUND endpoint receives the events of its types emitted after it was created (or re-enabled): ' +
      'every event of a transaction that began after its creation committed, none from before. Events ' +
      'of a type no active endpoint subscribes to are not recorded, so there is no history to replay.',
  });
export type Endpoint = z.infer<typeof EndpointSchema>;

export const ListedEndpointSchema = EndpointSchema.extend({
  _count: z.object({ deliveries: z.number().int() }),
}).openapi('ListedWebhookEndpoint');

export const EndpointWithSecretSchema = EndpointSchema.extend({
  secret: z.string().nullable().openapi({
    description: '`whsec_` + base64 of 32 random bytes. Shown only in this response; store it now.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2cGtnIfsFNA=',
  }),
}).openapi('WebhookEndpointWithSecret');

export const RotatedSecretSchema = EndpointWithSecretSchema.extend({
  previousSecretExpiresAt: Timestamp.nullable().openapi({
    description: 'Until then outbound requests are signed with both secrets and inbound accepts either.',
  }),
}).openapi('RotatedWebhookSecret');

export const EndpointParams = WorkspaceParams.extend({ webhookId: z.string() });
export const DeliveryParams = WorkspaceParams.extend({ deliveryId: z.string() });
export const InboundParams = z.object({ endpointId: z.string() });

export const DeliverySchema = z
  .object({
    id: z.string().openapi({ example: 'dlv_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
    endpointId: z.string(),
    messageId: z.string().nullable().openapi({ description: 'The `webhook-id`; null for inbound receipts.' }),
    direction: DirectionSchema,
    event: z.string().nullable(),
    attempt: z.number().int(),
    trigger: z
      .enum(['scheduled', 'manual'])
      .nullable()
      .openapi({ description: 'Null for inbound receipts.' }),
    url: z.string().nullable().openapi({
      description:
        'Outbound: the URL this attempt was sent to (the endpoint’s URL at the time). Inbound: the path received.',
    }),
    responseStatus: z.number().int().nullable(),
    responseBody: z.string().nullable().openapi({ description: 'The first 4 KB.' }),
    durationMs: z.number().int(),
    error: z.string().nullable(),
    success: z.boolean(),
    requestBytes: z.number().int().nullable().openapi({
      description:
        'Inbound receipts refused for their size (413): the size of the body, which was not stored.',
    }),
    createdAt: Timestamp,
  })
  .openapi('WebhookDelivery');
export type Delivery = z.infer<typeof DeliverySchema>;

export const ListDeliveriesQuery = z.strictObject({
  ...pageQuery({ defaultLimit: 50, maxLimit: 100 }),
  endpointId: z.string().optional(),
  success: QueryBoolean.optional(),
  event: z.string().max(200).optional(),
});
export type ListDeliveriesInput = z.output<typeof ListDeliveriesQuery>;

export const DeliveryPageSchema = paginated(DeliverySchema).openapi('WebhookDeliveryPage');

export const RetryAcceptedSchema = z
  .object({ deliveryId: z.string().openapi({ description: 'The id of the new attempt.' }) })
  .openapi('WebhookRetryAccepted');

// Unknown fields are dropped rather than refused: senders often add their own.
export const InboundPayloadSchema = z
  .object({
    type: z.string().trim().min(1, 'is required').max(200),
    email: emailAddress({ message: 'must be an email address', maxLength: 320 }).optional(),
    contactId: z.string().max(100).optional(),
    firstName: z.string().max(200).optional(),
    lastName: z.string().max(200).optional(),
    phone: z.string().max(50).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('InboundWebhookPayload');
export type InboundPayload = z.output<typeof InboundPayloadSchema>;

export const InboundReceivedSchema = z
  .object({ received: z.literal(true), deliveryId: z.string() })
  .openapi('InboundWebhookReceived');
