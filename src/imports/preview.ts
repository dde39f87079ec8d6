// What the console shows of an uploaded file before its import starts, read from its first bytes
// with the import's own reader and checks (read.ts, rows.ts, checkChunk.ts): the columns (a CSV
// file's header, the keys of an NDJSON file's first rows) and the first rows as they will be
// imported, each valid or refused with the reason the import would give.
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { idSeed, rowIds } from './bulkIds.ts';
import { checkLine } from './checkChunk.ts';
import type { CsvMapping } from './mapping.ts';
import { csvRecords, type Format, lineSpans } from './read.ts';
import type { JsonLimits } from './rowLimits.ts';
import { checkCsvRecord, csvRecord, type ImportKind } from './rows.ts';

/** The first bytes of the file the page reads (its columns and preview rows). */
export const HEAD_BYTES = 64 * 1024;
export const PREVIEW_ROWS = 10;
/** NDJSON rows whose keys make the list of columns. */
const KEY_ROWS = 50;

export type PreviewRow = { line: number; record: Record<string, unknown> | null; refused: string | null };

/**
 * The head as whole rows: cut after its last line break when the file goes on (a row cut in two
 * would be refused here and not in the import).
 */
export function wholeHead(head: Buffer, fileBytes: number): Buffer {
  const cut = head.subarray(0, HEAD_BYTES);
  if (fileBytes <= cut.length) return cut;
  const end = cut.lastIndexOf(0x0a);
  return end === -1 ? cut : cut.subarray(0, end + 1);
}

function csvHeader(head: Buffer): string[] {
  try {
    const [header] = parse(head, { bom: true, to: 1, relax_column_count: true }) as string[][];
    return (header ?? []).map((name) => name.trim());
  } catch {
    return [];
  }
}

function ndjsonKeys(head: Buffer): string[] {
  const keys = new Set<string>();
  const spans = lineSpans(head);
  for (let i = 0; i < spans.length && i < 2 * KEY_ROWS; i += 2) {
    try {
      const value = JSON.parse(head.subarray(spans[i], spans[i + 1]).toString('utf8')) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value))
        for (const key of Object.keys(value)) keys.add(key);
    } catch {
      // A line that is not JSON adds no key; the preview shows it refused.
    }
  }
  return [...keys];
}

/** The columns of the file, from its head. */
export function columnsOf(format: Format, head: Buffer): string[] {
  return format === 'csv' ? csvHeader(head) : ndjsonKeys(head);
}

async function csvPreview(kind: ImportKind, head: Buffer, mapping: CsvMapping, limits: JsonLimits) {
  const ids = rowIds(idSeed());
  const rows: PreviewRow[] = [];
  for await (const record of csvRecords(Readable.from([head]), { bytes: 0 })) {
    if ('error' in record) rows.push({ line: record.line, record: null, refused: record.error });
    else {
      const read = csvRecord(kind, record.value, mapping);
      const checked = 'value' in read ? checkCsvRecord(kind, record.line, read.value, ids, limits) : read;
      rows.push({
        line: record.line,
        record: 'value' in read ? read.value : null,
        refused: 'reason' in checked ? checked.reason : null,
      });
    }
    if (rows.length >= PREVIEW_ROWS) break;
  }
  return rows;
}

function ndjsonPreview(kind: ImportKind, head: Buffer, limits: JsonLimits): PreviewRow[] {
  const setup = { kind, seed: idSeed(), keepRecords: true, limits };
  const ids = rowIds(setup.seed);
  const spans = lineSpans(head);
  const rows: PreviewRow[] = [];
  for (let i = 0; i < spans.length && rows.length < PREVIEW_ROWS; i += 2) {
    const line = i / 2 + 1;
    const result = checkLine(setup, ids, line, head.subarray(spans[i], spans[i + 1]));
    if (result === null) continue;
    const refused = 'reason' in result.checked ? result.checked.reason : null;
    rows.push({ line, record: result.value ?? null, refused });
  }
  return rows;
}

/** The first rows as the import will read them (by `mapping` for CSV). */
export async function previewRows(
  kind: ImportKind,
  format: Format,
  head: Buffer,
  mapping: CsvMapping,
  limits: JsonLimits,
): Promise<PreviewRow[]> {
  return format === 'csv' ? csvPreview(kind, head, mapping, limits) : ndjsonPreview(kind, head, limits);
}
