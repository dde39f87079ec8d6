// Unsubscribe tokens: `<key id>.<message id>.<mac>`, the MAC an HMAC-SHA256 (first 16 bytes) of
// "u.<key id>.<message id>". Verified without a database lookup, so a flood of forged tokens costs
// no query; the key id lets a later key rotation keep old mail's links working. The key is derived
// from the session secret (configured in production, generated under DATA_DIR in development), so
// there is no second secret to manage.
import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import { sessionSecret } from '../http/session.ts';

const MAC_BYTES = 16;
const MESSAGE_ID = /^msg_[0-9A-Z]{26}$/;

// A KeyObject, not the Buffer: HMAC with a Buffer key prepares the key again each time, about five
// times the cost of the MAC itself, and a broadcast signs several tokens per message.
type TokenKey = { id: string; secret: KeyObject };
const keys = new WeakMap<Config, TokenKey>();

function tokenKey(config: Config): TokenKey {
  let key = keys.get(config);
  if (!key) {
    const secret = createHmac('sha256', sessionSecret(config))
      .update('switchboard/unsubscribe-token')
      .digest();
    const id = createHash('sha256').update(secret).digest('base64url').slice(0, 6).replace(/[-_]/g, 'k');
    key = { id, secret: createSecretKey(secret) };
    keys.set(config, key);
  }
  return key;
}

function mac(key: TokenKey, messageId: string): Buffer {
  return createHmac('sha256', key.secret).update(`u.${key.id}.${messageId}`).digest().subarray(0, MAC_BYTES);
}

export function signUnsubscribeToken(config: Config, messageId: string): string {
  const key = tokenKey(config);
  return `${key.id}.${messageId}.${mac(key, messageId).toString('base64url')}`;
}

/** The message id a genuine token carries; null for anything forged, tampered or malformed. */
export function verifyUnsubscribeToken(config: Config, token: string): string | null {
  const [keyId, messageId, given, ...rest] = token.split('.');
  const key = tokenKey(config);
  if (rest.length > 0 || keyId !== key.id || !MESSAGE_ID.test(messageId ?? '')) return null;
  const got = Buffer.from(given ?? '', 'base64url');
  const want = mac(key, messageId);
  return got.length === want.length && timingSafeEqual(got, want) ? messageId : null;
}

/** The public one-click URL (PUBLIC_URL, else the address the web process serves on). */
export function unsubscribeUrl(config: Config, messageId: string): string {
  return unsubscribeUrlOf(config, signUnsubscribeToken(config, messageId));
}

/** unsubscribeUrl for a token already signed (a send needs both, and signing is an HMAC). */
export function unsubscribeUrlOf(config: Config, token: string): string {
  const base = (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, '');
  return `${base}/u/${token}`;
}
