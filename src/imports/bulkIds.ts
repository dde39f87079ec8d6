// Ids for a million rows: `newId` draws 80 random bits per id (about 4 µs each), which was a
// large share of an import's own time. An import's ids share one time part and one random part
// and count up in the rest: still `evt_` + 26 Crockford base32 characters, unique, and sorted in
// the order they were made (the outbox is read in id order within a time). Event ids take their
// event's time instead (eventIdSequence).
import { ID_PREFIXES, type IdKind, ulid } from '../db/ids.ts';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const COUNTER_DIGITS = 10;

function base32(value: number, digits: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < digits; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** A source of ids of one import: time and 6 random characters from a fresh ULID, then a counter. */
export function idSequence() {
  const head = ulid().slice(0, 16);
  let counter = 0;
  return (kind: IdKind) => `${ID_PREFIXES[kind]}_${head}${base32(counter++, COUNTER_DIGITS)}`;
}

const EVENT_COUNTER_DIGITS = 7; // 34 billion rows an import
const MAX_ULID_TIME = 2 ** 48 - 1;

/**
 * Event ids of one import whose time part is the event's own time (ms), then 9 random characters
 * shared by the import and a counter: ids sort as their events happened (then by line), so events
 * inserted in time order append to every time-ordered index, the primary key included, instead of
 * landing at random in indexes larger than the database's cache. Still `evt_` + 26 Crockford
 * base32 characters, unique (the counter within an import, 45 random bits between imports).
 */
export function eventIdSequence() {
  const random = ulid().slice(-9);
  let counter = 0;
  return (timestamp: string | undefined) => {
    const at = timestamp === undefined ? Date.now() : Date.parse(timestamp);
    const time = base32(Math.min(Math.max(at, 0), MAX_ULID_TIME), 10);
    return `${ID_PREFIXES.event}_${time}${random}${base32(counter++, EVENT_COUNTER_DIGITS)}`;
  };
}

/** The first 20 characters of ids SQL completes with a counter of 10 hex digits (valid Crockford base32). */
export function idHead(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid().slice(0, 16)}`;
}
