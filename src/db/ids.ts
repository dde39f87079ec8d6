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
  message: 'msg',
  delivery: 'dlv',
  invitation: 'inv',
  pushSubscription: 'psb',
  publishableKey: 'pkey',
  form: 'frm',
  formSubmission: 'fsub',
  feedbackEndpoint: 'fbe',
  feedbackReceipt: 'fbr',
  auditEntry: 'aud',
  import: 'imp',
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

/** 40 bits (5 bytes from `offset`) → 8 base32 characters; 40-bit integers are exact in a double. */
function encode40(bytes: Uint8Array, offset: number): string {
  let value = 0;
  for (let i = offset; i < offset + 5; i++) value = value * 256 + bytes[i];
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = ALPHABET[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits → 16 base32 characters.
  return encode40(bytes, 0) + encode40(bytes, 5);
}

// Random bytes are drawn from the system a few kilobytes at a time: a call per id was a measurable
// share of ingest, which makes several ids per event.
const RANDOM_POOL = 4096;
let randomPool = randomBytes(RANDOM_POOL);
let randomOffset = 0;

function random10(): Uint8Array {
  if (randomOffset + 10 > RANDOM_POOL) {
    randomPool = randomBytes(RANDOM_POOL);
    randomOffset = 0;
  }
  const bytes = randomPool.subarray(randomOffset, randomOffset + 10);
  randomOffset += 10;
  return Uint8Array.from(bytes);
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
  return random10();
}

export function ulid(now = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = incremented(lastRandom);
  } else {
    lastTime = now;
    lastRandom = random10();
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

/**
 * The lowest id of this kind made at `time`: every id made before sorts below it. Lets a retention
 * rule find old rows on the primary key alone, with no index on their time.
 */
export function firstIdAt(kind: IdKind, time: Date): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(time.getTime())}${'0'.repeat(16)}`;
}
