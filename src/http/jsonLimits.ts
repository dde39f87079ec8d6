// Limits every JSON request body is held to, checked on the raw text before it is parsed: nothing
// recursive (validation, JSON.stringify, PostgreSQL's jsonb parser) ever sees a value nested past
// the limit, and a number that would be stored changed is refused instead. One iterative pass over
// the bytes; the structural characters of JSON are ASCII, so UTF-8 text needs no decoding.
//
// A number is refused when its value as written is not exactly the value stored: JSON numbers are
// held as IEEE 754 doubles, which keep about 17 significant digits within ±1.7976931348623157e308.
// So `1e400` (beyond the range), `12345678901234567890` (more digits than a double keeps) and
// `1e-400` (below the smallest double) are refused; `1e20`, `0.1` and `-0` (stored as 0) are not.
import type { Config } from '../config.ts';
import { type FieldError, UnsupportedMediaTypeError, ValidationError } from '../core/errors.ts';

export type JsonLimits = { maxDepth: number; maxArrayItems: number; maxObjectKeys: number };

/** The most bytes a JSON request body may hold (a 413 past it); `switchboard import` holds each row to it too. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

export function jsonLimitsOf(config: Config): JsonLimits {
  return {
    maxDepth: config.JSON_MAX_DEPTH,
    maxArrayItems: config.JSON_MAX_ARRAY_ITEMS,
    maxObjectKeys: config.JSON_MAX_OBJECT_KEYS,
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
/** 1 for the bytes number text is made of (`-+.eE0-9`), by byte value. */
const NUMBER_PART = new Uint8Array(128);
for (const char of '-+.eE0123456789') NUMBER_PART[char.charCodeAt(0)] = 1;

/** An array or object being read, and where in it the reader is (the key or index being read). */
type Frame = { isObject: boolean; commas: number; keyStart: number; keyEnd: number };

/** Decimal text of up to 15 significant digits without an exponent is always stored exactly. */
const ALWAYS_EXACT_LENGTH = 15;
const JSON_NUMBER = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** The decimal value of JSON number text as `digits` × 10^`exponent`, with no leading or trailing zeros. */
function decimalOf(text: string): string | null {
  const match = JSON_NUMBER.exec(text);
  if (!match) return null;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  const digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  const scale = BigInt(exponent) - BigInt(fraction.length) + BigInt(digits.length - significant.length);
  return `${sign}${significant}e${scale}`;
}

/** Why JSON number text would be stored as another value (null when it is stored as written). */
export function numberChange(text: string): string | null {
  if (text.length <= ALWAYS_EXACT_LENGTH && !/[eE]/.test(text)) return null;
  const written = decimalOf(text);
  if (written === null) return null; // not a JSON number: the parser refuses the body
  const value = Number(text);
  if (!Number.isFinite(value)) {
    return 'is a number beyond what can be stored (±1.7976931348623157e308): send it as a string';
  }
  if (decimalOf(String(value)) === written) return null;
  return `is a number that would be stored as ${value} (numbers keep about 17 significant digits): send it as a string`;
}

function keyOf(bytes: Buffer, frame: Frame): string {
  const text = bytes.toString('utf8', frame.keyStart, frame.keyEnd);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `body.a.0.b`: the path to the place being read at the given depth. */
function pathOf(bytes: Buffer, stack: Frame[], depth: number): string {
  const steps = stack
    .slice(0, depth)
    .map((frame) => (frame.isObject ? keyOf(bytes, frame) : String(frame.commas)));
  return ['body', ...steps].join('.');
}

/** Bytes of a string read one at a time before a native search takes over (see endOfString). */
const SHORT_STRING = 32;

/** The index just past the string that starts at `start` (its opening quote); -1 if it never ends. */
function endOfString(bytes: Buffer, start: number): number {
  // Most keys and values are short: a loop ends them sooner than a call to Buffer#indexOf returns
  // (a JSON-lines import checks millions of them). A long one is found by the native search, far
  // faster than a loop over each of its bytes.
  const near = Math.min(bytes.length, start + 1 + SHORT_STRING);
  for (let at = start + 1; at < near; at++) {
    if (bytes[at] === QUOTE) return at + 1;
    if (bytes[at] === BACKSLASH) at++; // the escaped byte is no quote
  }
  for (let quote = bytes.indexOf(QUOTE, near); quote !== -1; quote = bytes.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return -1;
}

function endOfNumber(bytes: Buffer, start: number): number {
  let at = start + 1;
  while (at < bytes.length && NUMBER_PART[bytes[at]] === 1) at++;
  return at;
}

/**
 * The first place in UTF-8 JSON text that nests deeper than the limit, holds more array items or
 * object keys than the limits, or holds a number that would be stored changed, as a field error;
 * null when there is none. Text that is not JSON is left for the parser to refuse.
 */
export function findJsonLimitBreach(bytes: Buffer, limits: JsonLimits): FieldError | null {
  const stack: Frame[] = [];
  let previous = 0; // the last byte that was not whitespace, outside strings
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at];
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    const top = stack[stack.length - 1];
    if (byte === QUOTE) {
      const end = endOfString(bytes, at);
      if (end === -1) return null;
      if (top?.isObject && (previous === OPEN_OBJECT || previous === COMMA)) {
        top.keyStart = at;
        top.keyEnd = end;
      }
      at = end - 1;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (stack.length >= limits.maxDepth) {
        return {
          path: pathOf(bytes, stack, stack.length),
          message: `nests arrays and objects deeper than ${limits.maxDepth} levels`,
        };
      }
      stack.push({ isObject: byte === OPEN_OBJECT, commas: 0, keyStart: 0, keyEnd: 0 });
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      stack.pop();
    } else if (byte === COMMA && top) {
      top.commas++;
      const limit = top.isObject ? limits.maxObjectKeys : limits.maxArrayItems;
      if (top.commas >= limit) {
        const what = top.isObject ? 'keys' : 'items';
        return {
          path: pathOf(bytes, stack, stack.length - 1),
          message: `must hold at most ${limit} ${what}`,
        };
      }
    } else if (byte === MINUS || (byte >= ZERO && byte <= NINE)) {
      const end = endOfNumber(bytes, at);
      const message = mayChange(bytes, at, end) ? numberChange(bytes.toString('latin1', at, end)) : null;
      if (message) return { path: pathOf(bytes, stack, stack.length), message };
      at = end - 1;
    }
    previous = bytes[at];
  }
  return null;
}

/** Cheap test before `numberChange`: long number text, or one with an exponent. */
function mayChange(bytes: Buffer, start: number, end: number): boolean {
  if (end - start > ALWAYS_EXACT_LENGTH) return true;
  for (let at = start; at < end; at++) if ((bytes[at] | 0x20) === 0x65) return true; // e or E
  return false;
}

/** As UTF-8: JSON may come as UTF-16 too (body-parser reads any `utf-*` charset). */
function utf8Of(bytes: Buffer, encoding: string): Buffer {
  if (encoding === 'utf-8' || encoding === 'utf8') return bytes;
  try {
    return Buffer.from(new TextDecoder(encoding).decode(bytes));
  } catch {
    throw new UnsupportedMediaTypeError();
  }
}

/** Throws a 400 naming the first place in a JSON body that breaks the limits; for body-parser's `verify`. */
export function refuseJsonLimitBreach(limits: JsonLimits) {
  return (_req: unknown, _res: unknown, bytes: Buffer, encoding = 'utf-8') => {
    const breach = findJsonLimitBreach(utf8Of(bytes, encoding.toLowerCase()), limits);
    if (breach) throw new ValidationError([breach]);
  };
}
