// The refused rows of a console import: read from the rejects the import wrote (line and reason),
// kept in import_rejects, then given their text as uploaded by a second pass over the file, which
// walks the file's records and the refused lines side by side in line order (memory stays a page
// of each). The download: a CSV file's header and refused rows as uploaded, two columns added
// (its line and why it was refused); an NDJSON file's as {line, reason, row} a line.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import type { Db } from '../db/pool.ts';
import type { Format } from './read.ts';
import { insertRejects, type RejectRow, rejectsAfter, setRejectRaws } from './uploadQueries.ts';

/** A refused row's text is kept up to this many characters (the API's body limit); a longer one is not kept. */
const MAX_RAW_CHARS = 1024 * 1024;
const PAGE = 1000;

type Where = { db: Db; workspaceId: string; importId: string };

/** The import's rejects file ({line, reason, record?} a line) into import_rejects; answers how many. */
async function loadRejects(where: Where, rejectsPath: string): Promise<number> {
  let count = 0;
  let page: { line: number; reason: string }[] = [];
  const lines = createInterface({ input: createReadStream(rejectsPath), crlfDelay: Infinity });
  for await (const text of lines) {
    if (!text) continue;
    const { line, reason } = JSON.parse(text) as { line: number; reason: string };
    page.push({ line, reason });
    count++;
    if (page.length >= PAGE) {
      await insertRejects(where.db, where.workspaceId, where.importId, page);
      page = [];
    }
  }
  await insertRejects(where.db, where.workspaceId, where.importId, page);
  return count;
}

type RawRecord = { line: number; raw: string };

/** A CSV file's records as written, numbered as the import numbers them (csv-parse, the same options). */
async function* csvRaw(file: string): AsyncGenerator<RawRecord> {
  const skipped: RawRecord[] = [];
  const parser = parse({
    columns: (header: string[]) => header.map((name) => name.trim()),
    bom: true,
    info: true,
    raw: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
  });
  parser.on('skip', (error: Error & { lines?: number; raw?: string }) => {
    skipped.push({ line: error.lines ?? 0, raw: error.raw ?? '' });
  });
  createReadStream(file).pipe(parser);
  for await (const { raw, info } of parser as AsyncIterable<{ raw: string; info: { lines: number } }>) {
    while (skipped.length) yield skipped.shift()!;
    yield { line: info.lines, raw };
  }
  while (skipped.length) yield skipped.shift()!;
}

/** An NDJSON file's lines, broken and numbered as the import breaks them (readline, crlfDelay: Infinity). */
async function* ndjsonRaw(file: string): AsyncGenerator<RawRecord> {
  let line = 0;
  for await (const raw of createInterface({ input: createReadStream(file), crlfDelay: Infinity }))
    yield { line: ++line, raw };
}

/** The refused lines in order, a page at a time from the database: `current` and `advance`. */
function refusedLines(where: Where) {
  let page: number[] = [];
  let index = 0;
  let after = 0;
  let done = false;
  const current = async (): Promise<number | null> => {
    if (index >= page.length && !done) {
      page = (await rejectsAfter(where.db, where.workspaceId, where.importId, after, PAGE)).map(
        (r) => r.line,
      );
      index = 0;
      done = page.length === 0;
      after = page.at(-1) ?? after;
    }
    return done ? null : page[index];
  };
  const advance = () => {
    index++;
    return current();
  };
  return { current, advance };
}

/** Gives each refused row its text as uploaded. */
async function attachRaws(where: Where, file: string, format: Format) {
  const refused = refusedLines(where);
  let wanted = await refused.current();
  let updates: { line: number; raw: string }[] = [];
  const flush = async () => {
    await setRejectRaws(where.db, where.workspaceId, where.importId, updates);
    updates = [];
  };
  for await (const record of format === 'csv' ? csvRaw(file) : ndjsonRaw(file)) {
    // A refused line no record ends on (none is expected) keeps no text.
    while (wanted !== null && wanted < record.line) wanted = await refused.advance();
    if (wanted === null) break;
    if (wanted !== record.line) continue;
    const raw = record.raw.replace(/\r?\n$/, '');
    if (raw.length <= MAX_RAW_CHARS) updates.push({ line: record.line, raw });
    if (updates.length >= PAGE) await flush();
    wanted = await refused.advance();
  }
  await flush();
}

/** Keeps the refused rows of an import that ended, with their text; answers how many there are. */
export async function keepRejects(where: Where, file: string, format: Format, rejectsPath: string) {
  const count = await loadRejects(where, rejectsPath).catch((error: NodeJS.ErrnoException) => {
    // No rejects file: no row was refused.
    if (error.code === 'ENOENT') return 0;
    throw error;
  });
  if (count > 0) await attachRaws(where, file, format);
  return count;
}

/** A CSV value, quoted when it must be. */
export function csvValue(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The first line of the rejects download (CSV: the header of the file, with the two columns added). */
export function rejectsHeader(format: Format, columns: readonly string[]): string {
  if (format === 'ndjson') return '';
  return `${[...columns, 'rejected_line', 'rejected_reason'].map(csvValue).join(',')}\n`;
}

/** One refused row of the download. */
export function rejectsLine(format: Format, row: RejectRow): string {
  if (format === 'ndjson') return `${JSON.stringify({ line: row.line, reason: row.reason, row: row.raw })}\n`;
  return `${row.raw ?? ''},${row.line},${csvValue(row.reason)}\n`;
}
