// Tracking tokens, verified without a database lookup (a flood of forged tokens costs no query):
//   open      `<key id>.<message id>.<mac>`                 MAC over "o.<key id>.<message id>"
//   click     `<key id>.<message id>.<url, base64url>.<mac>` MAC over "c.<key id>.<message id>.<url>"
//   honeypot  `<key id>.<message id>.<mac>`                 MAC over "h.<key id>.<message id>"
// Each MAC is an HMAC-SHA256 (first 16 bytes). The target URL is inside the signed click token, so
// the redirect needs no lookup either, and no token can be made to point anywhere else (no open
// redirect). The key id names the key that signed: TRACKING_SECRET may list several (the first
// signs, every one verifies), so a rotation keeps the links of mail already sent working.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import { sessionSecret } from '../http/session.ts';

const MAC_BYTES = 16;
const MESSAGE_ID = /^msg_[0-9A-Z]{26}$/;
/** Longer URLs are left untracked: the token would make an unwieldy link. */
export const MAX_TRACKED_URL = 2_000;

type TrackingKey = { id: string; secret: Buffer };
const keyRings = new WeakMap<Config, TrackingKey[]>();

function keyOf(secret: string): TrackingKey {
  const derived = createHmac('sha256', secret).update('switchboard/tracking-token').digest();
  const id = createHash('sha256').update(derived).digest('base64url').slice(0, 6).replace(/[-_]/g, 'k');
  return { id, secret: derived };
}

/** The signing key first, then the older ones still accepted. */
function keyRing(config: Config): TrackingKey[] {
  let ring = keyRings.get(config);
  if (!ring) {
    ring = (config.TRACKING_SECRET ?? [sessionSecret(config)]).map(keyOf);
    keyRings.set(config, ring);
  }
  return ring;
}

function mac(key: TrackingKey, signed: string): Buffer {
  return createHmac('sha256', key.secret).update(signed).digest().subarray(0, MAC_BYTES);
}

function macMatches(key: TrackingKey, signed: string, given: string): boolean {
  const got = Buffer.from(given, 'base64url');
  const want = mac(key, signed);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** Only web links are tracked or followed: a signed `javascript:` or `data:` URL is still refused. */
export function isWebUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** open and honeypot: tracking pixels and traps; push: a web push message's delivery and click acks. */
export type TrackingTokenKind = 'open' | 'honeypot' | 'push';
const PREFIX = { open: 'o', honeypot: 'h', push: 'p' } as const;

export function signMessageToken(config: Config, kind: TrackingTokenKind, messageId: string): string {
  const [key] = keyRing(config);
  return `${key.id}.${messageId}.${mac(key, `${PREFIX[kind]}.${key.id}.${messageId}`).toString('base64url')}`;
}

export function signClickToken(config: Config, messageId: string, url: string): string {
  const [key] = keyRing(config);
  const encoded = Buffer.from(url, 'utf8').toString('base64url');
  return `${key.id}.${messageId}.${encoded}.${mac(key, `c.${key.id}.${messageId}.${url}`).toString('base64url')}`;
}

function keyById(config: Config, id: string | undefined) {
  return keyRing(config).find((key) => key.id === id);
}

/** The message id a genuine open or honeypot token carries; null for anything else. */
export function verifyMessageToken(config: Config, kind: TrackingTokenKind, token: string): string | null {
  const [keyId, messageId, given, ...rest] = token.split('.');
  const key = keyById(config, keyId);
  if (!key || rest.length > 0 || !MESSAGE_ID.test(messageId ?? '') || given === undefined) return null;
  return macMatches(key, `${PREFIX[kind]}.${key.id}.${messageId}`, given) ? messageId : null;
}

/** The message id and target of a genuine click token to a web URL; null for anything else. */
export function verifyClickToken(config: Config, token: string): { messageId: string; url: string } | null {
  const [keyId, messageId, encoded, given, ...rest] = token.split('.');
  const key = keyById(config, keyId);
  if (!key || rest.length > 0 || !MESSAGE_ID.test(messageId ?? '') || !encoded || given === undefined) {
    return null;
  }
  const url = Buffer.from(encoded, 'base64url').toString('utf8');
  if (!macMatches(key, `c.${key.id}.${messageId}.${url}`, given)) return null;
  return isWebUrl(url) ? { messageId, url } : null;
}

/** The public origin tracking links point at (PUBLIC_URL, else the address the web process serves on). */
export function publicBase(config: Config): string {
  return (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, '');
}
