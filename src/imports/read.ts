// Reading an import file, whatever its size: a CSV file (header row first) as a stream of records
// through csv-parse, each with its line number for error reports; how NDJSON lines break and read
// (its chunks are read and checked by src/imports/checkThreads.ts). The bytes read so far feed the
// progress bar.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type Readable, Transform } from 'node:stream';
import { parse } from 'csv-parse';

export type Format = 'csv' | 'ndjson';

/** One record of the file: its fields, or why it could not be read at all. */
export type FileRecord = { line: number; value: Record<string, unknown> } | { line: number; error: string };

export function formatOf(file: string, given?: Format): Format {
  if (given) return given;
  if (/\.csv$/i.test(file)) return 'csv';
  if (/\.(nd)?jsonl?$/i.test(file)) return 'ndjson';
  throw new Error(
    `cannot tell the format of ${file} from its extension: pass --format csv or --format ndjson`,
  );
}

/** Counts the bytes that pass through (for the progress bar's share of the file). */
function byteCounter(progress: { bytes: number }) {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      progress.bytes += chunk.length;
      done(null, chunk);
    },
  });
}

export async function fileSize(file: string): Promise<number> {
  return (await stat(file)).size;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** The earlier of two places, -1 being none. */
const earliest = (at: number, other: number) => (other === -1 || other > at ? at : other);

/**
 * Where each NDJSON line of `bytes` starts and ends, its break left out, as `[start, end, start,
 * end, …]`: broken as readline (crlfDelay: Infinity) breaks them, at \r\n, \n or a lone \r, bytes
 * that are never part of a UTF-8 character. No line follows a final break.
 */
export function lineSpans(bytes: Buffer): number[] {
  const spans: number[] = [];
  let newline = bytes.indexOf(NEWLINE);
  let carriageReturn = bytes.indexOf(CARRIAGE_RETURN);
  for (let start = 0; start < bytes.length; ) {
    if (newline !== -1 && newline < start) newline = bytes.indexOf(NEWLINE, start);
    if (carriageReturn !== -1 && carriageReturn < start)
      carriageReturn = bytes.indexOf(CARRIAGE_RETURN, start);
    const end = earliest(earliest(bytes.length, newline), carriageReturn);
    spans.push(start, end);
    start = end + (bytes[end] === CARRIAGE_RETURN && bytes[end + 1] === NEWLINE ? 2 : 1);
  }
  return spans;
}

/** One NDJSON line: its object, why it is none, or null for a blank line (skipped, still counted). */
export function ndjsonValue(text: string): { value: Record<string, unknown> } | { error: string } | null {
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'is not valid JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { error: 'must be a JSON object' };
  return { value: value as Record<string, unknown> };
}

/** The records of a CSV file (or stream: the console's preview of its first bytes), and those that could not be read, in file order. */
export async function* csvRecords(
  file: string | Readable,
  progress: { bytes: number },
): AsyncGenerator<FileRecord> {
  const errors: FileRecord[] = [];
  const parser = parse({
    columns: (header: string[]) => header.map((name) => name.trim()),
    bom: true,
    info: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
  });
  // A record that cannot be parsed (a wrong number of fields, an unclosed quote) is skipped by the
  // parser and reported here, so the rest of the file is still read.
  parser.on('skip', (error: Error & { lines?: number }) => {
    errors.push({ line: error.lines ?? 0, error: error.message.replace(/^Invalid Record Length: /, '') });
  });
  const source = typeof file === 'string' ? createReadStream(file) : file;
  source.pipe(byteCounter(progress)).pipe(parser);
  for await (const { record, info } of parser as AsyncIterable<{
    record: Record<string, string>;
    info: { lines: number };
  }>) {
    while (errors.length) yield errors.shift()!;
    yield { line: info.lines, value: record };
  }
  while (errors.length) yield errors.shift()!;
}
