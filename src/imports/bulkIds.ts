// Ids for a million rows: `newId` draws 80 random bits per id (about 4 µs each), which was a
// large share of an import's own time. An import's ids share one time part and one random part
// and count up in the rest: still `evt_` + 26 Crockford base32 characters, unique, and sorted in
// the order they were made (the outbox is read in id order within a time).
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

/** The first 20 characters of ids SQL completes with a counter of 10 hex digits (valid Crockford base32). */
export function idHead(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid().slice(0, 16)}`;
}
