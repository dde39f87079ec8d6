// Request and response shapes of the provider feedback endpoints of the email channel. The
// Postmark password and header value go in and never come out (`passwordSet`, `valueSet`).
import { createPublicKey } from 'node:crypto';
import { z } from 'zod';
import '../../core/zodOpenApi.ts';
import { Timestamp } from '../../http/validation.ts';

const TOPIC_ARN = /^arn:aws(-[a-z]+)*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

export const PutSesFeedbackBody = z
  .object({
    topicArn: z
      .string()
      .regex(TOPIC_ARN, 'must be an SNS topic ARN, e.g. arn:aws:sns:eu-west-1:123456789012:ses-feedback')
      .openapi({ description: 'The only topic whose notifications this endpoint accepts.' }),
  })
  .openapi('SesFeedbackInput', { example: { topicArn: 'arn:aws:sns:eu-west-1:123456789012:ses-feedback' } });

/** SendGrid shows the key as base64 DER (SPKI); a PEM block is accepted too. */
function p256KeyOf(text: string) {
  try {
    const key = text.includes('-----BEGIN')
      ? createPublicKey(text)
      : createPublicKey({ key: Buffer.from(text.trim(), 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1'
      ? key
      : null;
  } catch {
    return null;
  }
}

export const PutSendgridFeedbackBody = z
  .object({
    publicKey: z
      .string()
      .max(4096, 'must be at most 4096 characters')
      .refine((text) => p256KeyOf(text) !== null, 'must be an ECDSA P-256 public key (base64 or PEM)')
      .transform((text) =>
        (p256KeyOf(text)!.export({ format: 'der', type: 'spki' }) as Buffer).toString('base64'),
      )
      .openapi({
        description:
          'The verification key from SendGrid’s Mail Settings → Signed Event Webhook (base64 or PEM).',
      }),
  })
  .openapi('SendgridFeedbackInput', { example: { publicKey: 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE…' } });

const Secret = z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters');

export const PutPostmarkFeedbackBody = z
  .object({
    basicAuth: z
      .object({
        username: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
        password: Secret.optional().openapi({
          description: 'Left out: the stored password is kept while the username is unchanged.',
        }),
      })
      .nullable()
      .optional()
      .openapi({ description: 'The user and password set in the Postmark webhook’s HTTP auth.' }),
    header: z
      .object({
        name: z
          .string()
          .regex(/^[A-Za-z0-9-]{1,100}$/, 'must be a header name (letters, digits and -)')
          .refine(
            (name) => name.toLowerCase() !== 'authorization',
            'must not be Authorization (use basicAuth)',
          ),
        value: Secret.optional().openapi({
          description: 'Left out: the stored value is kept while the name is unchanged.',
        }),
      })
      .nullable()
      .optional()
      .openapi({ description: 'A custom header set on the Postmark webhook, with a secret value.' }),
  })
  .openapi('PostmarkFeedbackInput', {
    description: 'At least one of basicAuth and header; when both are set, a request needs both.',
    example: { basicAuth: { username: 'postmark', password: 'a long random password' } },
  });
export type PutPostmarkFeedbackBody = z.output<typeof PutPostmarkFeedbackBody>;

const endpointFields = {
  id: z.string().openapi({ example: 'fbe_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
  url: z.string().openapi({ description: 'Give this URL to the provider.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const FeedbackEndpointSchema = z
  .discriminatedUnion('provider', [
    z.object({ provider: z.literal('ses'), ...endpointFields, topicArn: z.string() }),
    z.object({ provider: z.literal('sendgrid'), ...endpointFields, publicKey: z.string() }),
    z.object({
      provider: z.literal('postmark'),
      ...endpointFields,
      basicAuth: z.object({ username: z.string(), passwordSet: z.boolean() }).nullable(),
      header: z.object({ name: z.string(), valueSet: z.boolean() }).nullable(),
    }),
  ])
  .openapi('EmailFeedbackEndpoint', {
    example: {
      provider: 'ses',
      id: 'fbe_01JD2Z3K4M5N6P7Q8R9S0T1V2W',
      url: 'https://switchboard.example.com/api/feedback/fbe_01JD2Z3K4M5N6P7Q8R9S0T1V2W/ses',
      topicArn: 'arn:aws:sns:eu-west-1:123456789012:ses-feedback',
      createdAt: '2025-01-01T12:00:00.000Z',
      updatedAt: '2025-01-01T12:00:00.000Z',
    },
  });

export const FeedbackEndpointList = z
  .object({ data: z.array(FeedbackEndpointSchema) })
  .openapi('EmailFeedbackEndpointList');
