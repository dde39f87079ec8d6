// Dates in rule values and in attribute or metadata strings. Only ISO 8601 dates and date-times
// count (never "now" or "yesterday", which PostgreSQL would accept); a date-time without an offset
// is UTC, so the same string compares the same in JavaScript and in SQL, whatever the server zone.
import { EARLIEST_INSTANT } from '../http/validation.ts';

const ISO_INSTANT =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:T([01]\d|2[0-3]):([0-5]\d)(?::[0-5]\d(?:\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** The same pattern for PostgreSQL (its regular expressions read this syntax alike). */
export const ISO_INSTANT_PATTERN = ISO_INSTANT.source;

/**
 * Epoch milliseconds of an ISO 8601 date or date-time (UTC when no offset), or null; null too before
 * the year 1, which PostgreSQL cannot read back (its switchboard_parse_instant gives null there alike).
 */
export function parseInstant(text: string): number | null {
  const match = ISO_INSTANT.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, , offset] = match;
  // The pattern allows day 31 in every month; the calendar decides (PostgreSQL refuses Feb 30 too).
  if (Number(day) > new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate()) return null;
  const utc = hour !== undefined && offset === undefined ? `${text}Z` : text;
  const ms = Date.parse(utc);
  return Number.isNaN(ms) || ms < EARLIEST_INSTANT ? null : ms;
}
