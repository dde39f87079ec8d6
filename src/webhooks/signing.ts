// Webhook secrets and both signature schemes, for sending and for verifying:
// - X-Webhook-Signature: hex HMAC-SHA256 of the raw body, keyed with the secret string itself;
// - Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the
//   base64-decoded part of `whsec_…`, several space-separated during a rotation.
// Every comparison is constant-time.
import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'whsec_';
/** Standard Webhooks receivers refuse timestamps further than this from their clock. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export function generateSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

// Building a key from a string on every HMAC showed in profiles; a few hundred endpoints' keys
// are cheap to keep. Cleared wholesale when it grows, so rotated secrets do not pile up.
const keyCache = new Map<string, KeyObject>();

function cachedKey(cacheKey: string, material: () => Buffer): KeyObject {
  let key = keyCache.get(cacheKey);
  if (!key) {
    if (keyCache.size >= 1000) keyCache.clear();
    key = createSecretKey(material());
    keyCache.set(cacheKey, key);
  }
  return key;
}

/** The hex scheme keys with the secret string as it is. */
function hexKey(secret: string): KeyObject {
  return cachedKey(`hex:${secret}`, () => Buffer.from(secret, 'utf8'));
}

/** Standard Webhooks keys with the base64-decoded part after `whsec_`. */
function standardKey(secret: string): KeyObject {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  return cachedKey(`std:${secret}`, () => Buffer.from(encoded, 'base64'));
}

export function hexSignature(secret: string, body: string | Buffer): string {
  return createHmac('sha256', hexKey(secret)).update(body).digest('hex');
}

export function standardSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string | Buffer,
): string {
  const hmac = createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.`).update(body);
  return `v1,${hmac.digest('base64')}`;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export type SigningHeaders = {
  'X-Webhook-Signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** Signs with every live secret (newest first); the hex header uses the newest only. */
export function signingHeaders(
  secrets: readonly string[],
  messageId: string,
  body: string,
  now = Date.now(),
): SigningHeaders {
  const timestamp = Math.floor(now / 1000);
  return {
    'X-Webhook-Signature': hexSignature(secrets[0], body),
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets
      .map((secret) => standardSignature(secret, messageId, timestamp, body))
      .join(' '),
  };
}

export function verifyHex(secrets: readonly string[], body: Buffer, header: string): boolean {
  const presented = header.trim().toLowerCase();
  return secrets.some((secret) => sameText(hexSignature(secret, body), presented));
}

export type StandardHeaders = { id?: string; timestamp?: string; signature?: string };

export function verifyStandard(
  secrets: readonly string[],
  body: Buffer,
  headers: StandardHeaders,
  now = Date.now(),
): boolean {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return false;
  const presented = signature.split(' ').filter((part) => part.startsWith('v1,'));
  return secrets.some((secret) => {
    const expected = standardSignature(secret, id, Number(timestamp), body);
    return presented.some((candidate) => sameText(expected, candidate));
  });
}
