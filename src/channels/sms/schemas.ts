// Request and response shapes of a workspace's SMS channel (a Twilio-compatible Messages API). The
// auth token goes in and never comes out (`authTokenSet`).
import { z } from 'zod';
import '../../core/zodOpenApi.ts';
import { Timestamp } from '../../http/validation.ts';
import { isRegion, toE164 } from './phone.ts';

const Sid = (prefix: string) =>
  z
    .string()
    .trim()
    .regex(new RegExp(`^${prefix}[0-9a-fA-F]{32}$`), `must be ${prefix} followed by 32 hexadecimal digits`);

export const PutSmsConfigBody = z
  .strictObject({
    accountSid: Sid('AC').openapi({ example: 'AC0123456789abcdef0123456789abcdef' }),
    authToken: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9]{16,128}$/, 'must be the account’s auth token: 16 to 128 letters and digits')
      .openapi({ example: '0123456789abcdef0123456789abcdef' }),
    from: z
      .string()
      .trim()
      .max(32)
      .refine((value) => toE164(value) !== null, 'must be a phone number in E.164 form, e.g. +14155550100')
      .transform((value) => toE164(value) as string)
      .optional()
      .openapi({ description: 'The sending number (E.164). Give this or messagingServiceSid.' }),
    messagingServiceSid: Sid('MG')
      .optional()
      .openapi({ description: 'A Messaging Service that picks the sender. Give this or `from`.' }),
    defaultRegion: z
      .string()
      .trim()
      .toUpperCase()
      .refine(isRegion, 'must be an ISO 3166-1 alpha-2 country code, e.g. FR')
      .nullable()
      .optional()
      .openapi({
        description:
          "Where a contact's phone number written without its country code is read (e.g. 06 12 34 56 78 in FR); null or absent: only international numbers are sent to.",
        example: 'FR',
      }),
    apiUrl: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(500)
      .optional()
      .openapi({
        description:
          'The Twilio-compatible API to send through (default https://api.twilio.com). Only https, at a public address, unless ALLOW_PRIVATE_TARGETS.',
      }),
  })
  .superRefine((body, ctx) => {
    if ((body.from === undefined) === (body.messagingServiceSid === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['from'],
        message: 'give exactly one of from and messagingServiceSid',
      });
    }
  })
  .openapi('SmsChannelInput');
export type PutSmsConfigBody = z.output<typeof PutSmsConfigBody>;

export const SmsConfigSchema = z
  .object({
    channel: z.literal('sms'),
    accountSid: z.string(),
    from: z.string().nullable(),
    messagingServiceSid: z.string().nullable(),
    defaultRegion: z.string().nullable(),
    apiUrl: z.string(),
    statusCallbackUrl: z.string().openapi({
      description: 'Where the provider posts delivery reports (sent with each message as StatusCallback).',
    }),
    inboundUrl: z.string().openapi({
      description:
        "Set this as the number's (or Messaging Service's) incoming message webhook: STOP and START replies change the contact's SMS subscription.",
    }),
    authTokenSet: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('SmsChannel');
