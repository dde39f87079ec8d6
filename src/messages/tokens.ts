// Per-message tokens: `<key id>.<message id>.<mac>`, the MAC an HMAC-SHA256 (first 16 bytes) of
// "u.<key id>.<message id>" under a key of their purpose: unsubscribe links, and the web push
// service worker's acknowledgements (a token of one purpose is worthless for the other). Verified without a database lookup, so a flood of forged tokens costs
// no query; the key id lets a later key rotation keep old mail's links working. The key is derived
// from the session secret (configured in production, generated under DATA_DIR in development), so
// there is no second secret to manage.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import { sessionSecret } from '../http/session.ts';

const MAC_BYTES = 16;
const MESSAGE_ID = /^msg_[0-9A-Z]{26}$/;

type TokenKey = { id: string; secret: Buffer };
type Purpose = 'unsubscribe' | 'push-ack';
const keys = new WeakMap<Config, Map<Purpose, TokenKey>>();

function tokenKey(config: Config, purpose: Purpose): TokenKey {
  let byPurpose = keys.get(config);
  if (!byPurpose) {
    byPurpose = new Map();
    keys.set(config, byPurpose);
  }
  let key = byPurpose.get(purpose);
  if (!key) {
    const secret = createHmac('sha256', sessionSecret(config))
      .update(`switchboard/${purpose}-token`)
      .digest();
    const id = createHash('sha256').update(secret).digest('base64url').slice(0, 6).replace(/[-_]/g, 'k');
    key = { id, secret };
    byPurpose.set(purpose, key);
  }
  return key;
}

function mac(key: TokenKey, messageId: string): Buffer {
  return createHmac('sha256', key.secret).update(`u.${key.id}.${messageId}`).digest().subarray(0, MAC_BYTES);
}

function signToken(config: Config, purpose: Purpose, messageId: string): string {
  const key = tokenKey(config, purpose);
  return `${key.id}.${messageId}.${mac(key, messageId).toString('base64url')}`;
}

/** The message id a genuine token carries; null for anything forged, tampered or malformed. */
function verifyToken(config: Config, purpose: Purpose, token: string): string | null {
  const [keyId, messageId, given, ...rest] = token.split('.');
  const key = tokenKey(config, purpose);
  if (rest.length > 0 || keyId !== key.id || !MESSAGE_ID.test(messageId ?? '')) return null;
  const got = Buffer.from(given ?? '', 'base64url');
  const want = mac(key, messageId);
  return got.length === want.length && timingSafeEqual(got, want) ? messageId : null;
}

export const signUnsubscribeToken = (config: Config, messageId: string) =>
  signToken(config, 'unsubscribe', messageId);
export const verifyUnsubscribeToken = (config: Config, token: string) =>
  verifyToken(config, 'unsubscribe', token);
/** What the service worker sends back with a push message's delivery and click. */
export const signPushAckToken = (config: Config, messageId: string) =>
  signToken(config, 'push-ack', messageId);
export const verifyPushAckToken = (config: Config, token: string) => verifyToken(config, 'push-ack', token);

/** PUBLIC_URL, else the address the web process serves on. */
export function publicBaseUrl(config: Config): string {
  return (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, '');
}

/** The public one-click URL (PUBLIC_URL, else the address the web process serves on). */
export function unsubscribeUrl(config: Config, messageId: string): string {
  return `${publicBaseUrl(config)}/u/${signUnsubscribeToken(config, messageId)}`;
}
