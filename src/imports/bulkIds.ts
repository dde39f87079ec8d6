// Ids for a million rows: `newId` draws 80 random bits per id (about 4 µs each), which was a
// large share of an import's own time. An import's ids share one time part and one random part
// and end in a number: the row's line for ids made in Node (so the threads that check rows make
// the same ids as one would), a row number for ids made in SQL (countedIds). Still a prefix and 26
// Crockford base32 characters, unique, and sorted in the order of their lines (the outbox is read
// in id order within a time). Event ids take their event's time instead.
import type { FragmentSqlToken } from 'slonik';
import { ID_PREFIXES, type IdKind, ulid } from '../db/ids.ts';
import { sql } from '../db/pool.ts';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const COUNTER_DIGITS = 10;

/** Every pair of digits (0–1023), so a number is written two digits a step (a million event ids). */
const PAIRS = Array.from({ length: 1024 }, (_, n) => ALPHABET[n >> 5] + ALPHABET[n & 31]);

function base32(value: number, digits: number): string {
  let out = '';
  let rest = value;
  let left = digits;
  for (; left >= 2; left -= 2) {
    out = PAIRS[rest % 1024] + out;
    rest = Math.floor(rest / 1024);
  }
  return left ? ALPHABET[rest % 32] + out : out;
}

/** What an import's ids share: a time and random part for every kind, a random part for events. */
export type IdSeed = { head: string; random: string };

export function idSeed(): IdSeed {
  return { head: ulid().slice(0, 16), random: ulid().slice(-9) };
}

const EVENT_COUNTER_DIGITS = 7; // 34 billion lines a file
const MAX_ULID_TIME = 2 ** 48 - 1;

/** The ids of an import's rows, numbered by line: the same whichever thread checks the row. */
export type RowIds = {
  /** `kind` + the seed's head + `counter` (the row's line; 2×line and 2×line+1 for two of a kind). */
  next: (kind: IdKind, counter: number) => string;
  /**
   * The event id of a row: its event's own time (ms), the seed's random part, then its line. Ids
   * sort as their events happened (then by line), so events inserted in time order append to every
   * time-ordered index, the primary key included, instead of landing at random in indexes larger
   * than the database's cache. Still `evt_` + 26 Crockford base32 characters, unique (the line
   * within an import, 45 random bits between imports).
   */
  event: (timestamp: string | undefined, line: number) => string;
};

export function rowIds(seed: IdSeed): RowIds {
  return {
    next: (kind, counter) => `${ID_PREFIXES[kind]}_${seed.head}${base32(counter, COUNTER_DIGITS)}`,
    event: (timestamp, line) => {
      const at = timestamp === undefined ? Date.now() : Date.parse(timestamp);
      const time = base32(Math.min(Math.max(at, 0), MAX_ULID_TIME), 10);
      return `${ID_PREFIXES.event}_${time}${seed.random}${base32(line, EVENT_COUNTER_DIGITS)}`;
    },
  };
}

/** The first 20 characters of ids SQL completes with a counter of 10 hex digits (valid Crockford base32). */
export function idHead(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid().slice(0, 16)}`;
}

/**
 * Ids of `kind` made in SQL: a fresh head (idHead) and `counter` (a whole number unique among the
 * rows of the statement, e.g. the file's line) in 10 hex digits. They sort in the counter's order,
 * after the ids of any head made before.
 */
export function countedIds(kind: IdKind): (counter: FragmentSqlToken) => FragmentSqlToken {
  const head = idHead(kind);
  return (counter) => sql.fragment`${head} || lpad(upper(to_hex(${counter})), 10, '0')`;
}
