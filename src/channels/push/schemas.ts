// Request and response shapes of a workspace's web push channel: the VAPID subject goes in, the
// public key comes out (browsers subscribe with it); the private key never leaves the server.
import { z } from 'zod';
import '../../core/zodOpenApi.ts';
import { Timestamp } from '../../http/validation.ts';

const SUBJECT_MESSAGE = 'must be a mailto: address or an https:// URL where the push service can reach you';

/** Push services contact the subject about problems; Apple refuses localhost subjects. */
function isVapidSubject(text: string): boolean {
  if (/^mailto:[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) return true;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.hostname !== 'localhost' && !url.hostname.endsWith('.localhost');
  } catch {
    return false;
  }
}

export const PutPushConfigBody = z
  .strictObject({
    subject: z
      .string()
      .trim()
      .max(512, 'must be at most 512 characters')
      .refine(isVapidSubject, SUBJECT_MESSAGE)
      .openapi({ example: 'mailto:ops@acme.example' }),
  })
  .openapi('PushChannelInput');
export type PutPushConfigBody = z.output<typeof PutPushConfigBody>;

export const PushConfigSchema = z
  .object({
    channel: z.literal('push'),
    subject: z.string(),
    publicKey: z.string().openapi({
      description:
        "The VAPID public key (65-byte uncompressed P-256 point, base64url): the page's " +
        '`applicationServerKey` for `pushManager.subscribe()`. /sdk/push.js reads it for you.',
    }),
    subscriptions: z.number().int().openapi({ description: 'Browsers subscribed in this workspace.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('PushChannel', {
    example: {
      channel: 'push',
      subject: 'mailto:ops@acme.example',
      publicKey: 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U',
      subscriptions: 3,
      createdAt: '2025-01-01T12:00:00.000Z',
      updatedAt: '2025-01-01T12:00:00.000Z',
    },
  });
