// Prefixed identifiers that sort by creation time, as Stripe and Unkey do: `ct_01JD…`.
// The body is a ULID (48-bit millisecond time + 80 random bits, Crockford base32), monotonic
// within one process so ids made in the same millisecond still sort in creation order.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export const ID_PREFIXES = {
  user: 'usr',
  workspace: 'ws',
  apiKey: 'key',
  contact: 'ct',
  event: 'evt',
  segment: 'seg',
  scoringRule: 'scr',
  scoreChange: 'scg',
  campaign: 'cmp',
  enrollment: 'enr',
  outgoingEvent: 'oev',
  webhookEndpoint: 'whe',
  webhookMessage: 'msg',
  delivery: 'dlv',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

let lastTime = 0;
let lastRandom: Uint8Array = new Uint8Array(10);

function encodeTime(time: number): string {
  let out = '';
  let rest = time;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits → 16 base32 characters.
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < 16; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

function incremented(bytes: Uint8Array): Uint8Array {
  const next = Uint8Array.from(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] < 255) {
      next[i]++;
      return next;
    }
    next[i] = 0;
  }
  return randomBytes(10);
}

export function ulid(now = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = incremented(lastRandom);
  } else {
    lastTime = now;
    lastRandom = randomBytes(10);
  }
  return encodeTime(lastTime) + encodeRandom(lastRandom);
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid()}`;
}

/** True when `value` has the shape of an id of this kind (used to answer 404 without a query). */
export function looksLikeId(kind: IdKind, value: string): boolean {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-HJKMNP-TV-Z]{26}$`).test(value);
}
