// Reading an import file, whatever its size: a CSV file (header row first) as a stream of records
// through csv-parse, each with its line number for error reports; how NDJSON lines break and read
// (its chunks are read and checked by src/imports/checkThreads.ts). The bytes read so far feed the
// progress bar.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
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

/** NDJSON line breaks, as readline (crlfDelay: Infinity) takes them: \r\n, \n, or a lone \r. */
export const LINE_BREAK = /\r\n|\n|\r/;

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

/** The records of a CSV file, and those that could not be read, in file order. */
export async function* csvRecords(file: string, progress: { bytes: number }): AsyncGenerator<FileRecord> {
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
  createReadStream(file).pipe(byteCounter(progress)).pipe(parser);
  for await (const { record, info } of parser as AsyncIterable<{
    record: Record<string, string>;
    info: { lines: number };
  }>) {
    while (errors.length) yield errors.shift()!;
    yield { line: info.lines, value: record };
  }
  while (errors.length) yield errors.shift()!;
}
