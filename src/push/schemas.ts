// Shapes of the public web push endpoints: a browser's subscription (as PushSubscription.toJSON()
// gives it) with who the visitor is, the VAPID key pages subscribe with, and the service worker's
// acknowledgements.
import { z } from 'zod';
import { PUSH_ENDPOINT_MAX_LENGTH } from '../channels/index.ts';
import { visitorIdentityFields } from '../publicEvents/index.ts';

/** base64url (padding tolerated, as some browsers send it) of exactly `bytes` bytes. */
const base64UrlKey = (bytes: number, what: string) =>
  z
    .string()
    .max(200)
    .transform((value) => value.replace(/=+$/, ''))
    .refine(
      (value) => /^[A-Za-z0-9_-]+$/.test(value) && Buffer.from(value, 'base64url').length === bytes,
      `must be the browser's ${what}: ${bytes} bytes, base64url`,
    );

export const PushSubscriptionJson = z
  .object({
    endpoint: z
      .string()
      .max(PUSH_ENDPOINT_MAX_LENGTH, `must be at most ${PUSH_ENDPOINT_MAX_LENGTH} characters`),
    expirationTime: z.number().nonnegative().nullish(),
    keys: z.strictObject({
      p256dh: base64UrlKey(65, 'P-256 public key').refine(
        (value) => Buffer.from(value, 'base64url')[0] === 4,
        'must be an uncompressed P-256 point',
      ),
      auth: base64UrlKey(16, 'auth secret'),
    }),
  })
  .openapi({ description: '`PushSubscription.toJSON()` as the browser gives it.' });

export const SubscribeBody = z
  .strictObject({
    subscription: PushSubscriptionJson,
    ...visitorIdentityFields,
  })
  .openapi('PushSubscriptionRequest', {
    example: {
      subscription: {
        endpoint: 'https://fcm.googleapis.com/fcm/send/dGVzdA:APA91b…',
        expirationTime: null,
        keys: {
          p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
          auth: 'tBHItJI5svbpez7KI4CCXg',
        },
      },
      anonymousId: 'a7c1e2d0',
    },
  });
export type SubscribeBody = z.output<typeof SubscribeBody>;

export const Subscribed = z
  .object({ subscribed: z.literal(true) })
  .openapi('PushSubscribed', { description: 'Stored; contact details are not sent to the page.' });

export const PushPublicConfig = z
  .object({
    publicKey: z.string().openapi({ description: 'The VAPID public key: the `applicationServerKey`.' }),
  })
  .openapi('PushPublicConfig');

export const AckBody = z
  .strictObject({
    token: z.string().max(200).openapi({ description: "The push message's `ackToken`." }),
    event: z.enum(['delivered', 'clicked']),
  })
  .openapi('PushAck');
