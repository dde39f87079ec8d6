// Publishable keys: `pk_` + 24 random bytes (base64url). Not a secret (it sits in page source), so
// no checksum or hash: the key is stored and shown as it is. Secret keys start with `sb_`.
import { randomBytes } from 'node:crypto';

const KEY_SHAPE = /^pk_[A-Za-z0-9_-]{32}$/;

export function generatePublishableKey(): string {
  return `pk_${randomBytes(24).toString('base64url')}`;
}

export function isWellFormedPublishableKey(key: string): boolean {
  return KEY_SHAPE.test(key);
}

/** A secret API key: never to be accepted where a browser may have sent it. */
export function looksLikeSecretKey(value: string): boolean {
  return value.startsWith('sb_');
}
