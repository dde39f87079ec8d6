// The limits the API holds every JSON request body to (src/http/jsonLimits.ts: its size, nesting,
// items in an array, keys in an object, and numbers that would be stored changed), applied to each
// row of an import as to the body that would carry it through the API: an NDJSON line as written,
// a CSV row as the JSON of the record it makes. A line is checked on its bytes before it is parsed:
// JSON.parse has already made `1e400` Infinity (stored as null) and `12345678901234567890` another
// number, so the text is the only place left to see them; and no value nested past the limit ever
// reaches anything recursive. One pass over the bytes, under 1 µs a row of bench:import's events:
// about 6% of a row's check (profiled), the zod schemas being most of the rest.
import { findJsonLimitBreach, JSON_BODY_LIMIT_BYTES, type JsonLimits } from '../http/jsonLimits.ts';

export type { JsonLimits };

const bytesText = (bytes: number) => `${bytes.toLocaleString('en')} bytes`;

function tooLarge(bytes: number): string {
  return `record: is ${bytesText(bytes)}, more than the API takes in a request body (1 MB, ${bytesText(JSON_BODY_LIMIT_BYTES)})`;
}

/** The API names a place `body.metadata.a.0`; a row's reasons name it `metadata.a.0` (`record` for the row). */
const rowPath = (path: string) => (path === 'body' ? 'record' : path.slice('body.'.length));

/** Why a row, as the UTF-8 JSON text of its body, breaks the API's limits (`path: message`); null if it does not. */
export function rowBreach(bytes: Buffer, limits: JsonLimits): string | null {
  if (bytes.length > JSON_BODY_LIMIT_BYTES) return tooLarge(bytes.length);
  const breach = findJsonLimitBreach(bytes, limits);
  return breach && `${rowPath(breach.path)}: ${breach.message}`;
}

/** The same for a record read from CSV (text cells only), as the JSON body it would be. */
export function recordBreach(record: Record<string, unknown>, limits: JsonLimits): string | null {
  const json = JSON.stringify(record);
  const bytes = Buffer.byteLength(json);
  // A 20 MB cell is refused by its length, without copying it once more.
  if (bytes > JSON_BODY_LIMIT_BYTES) return tooLarge(bytes);
  return rowBreach(Buffer.from(json), limits);
}
