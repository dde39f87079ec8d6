// Checking an NDJSON import's rows a chunk of whole lines at a time, on a thread of its own
// (src/imports/checkThread.ts) or on the main one (src/imports/checkThreads.ts shares the work):
// each line broken as src/imports/read.ts says (lineSpans), held to the API's body limits on its
// bytes (src/imports/rowLimits.ts), read (ndjsonValue), checked and turned into COPY text with the
// ids of its line, so any thread makes the same ids for it.
import type { IdSeed, RowIds } from './bulkIds.ts';
import { lineSpans, ndjsonValue } from './read.ts';
import { type JsonLimits, rowBreach } from './rowLimits.ts';
import { type Checked, checkRow, type ImportKind } from './rows.ts';

export type CheckSetup = { kind: ImportKind; seed: IdSeed; keepRecords: boolean; limits: JsonLimits };
/** Whole lines of the file (their bytes, moved to the thread), the first of them numbered `firstLine`. */
export type ChunkRequest = { id: number; bytes: Uint8Array; firstLine: number };
export type Rejected = { line: number; reason: string; record?: unknown };
/** The chunk's rows in COPY text, how many there were (blank lines aside) and those refused. */
export type CheckedChunk = { id: number; copy: string; rows: number; rejected: Rejected[] };

export type LineCheck = { checked: Checked; value?: Record<string, unknown> };

/** One line: refused as the API refuses a body (before it is parsed), read, then checked; null if blank. */
export function checkLine(setup: CheckSetup, ids: RowIds, line: number, bytes: Buffer): LineCheck | null {
  const breach = rowBreach(bytes, setup.limits);
  if (breach) return { checked: { reason: breach } };
  const read = ndjsonValue(bytes.toString('utf8'));
  if (read === null) return null;
  if ('error' in read) return { checked: { reason: read.error } };
  return { checked: checkRow(setup.kind, line, read.value, ids), value: read.value };
}

export function checkChunk(
  setup: CheckSetup,
  ids: RowIds,
  { id, bytes, firstLine }: ChunkRequest,
): CheckedChunk {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const spans = lineSpans(buffer);
  const copy: string[] = [];
  const rejected: Rejected[] = [];
  let rows = 0;
  for (let index = 0; index < spans.length / 2; index++) {
    const line = firstLine + index;
    const result = checkLine(setup, ids, line, buffer.subarray(spans[2 * index], spans[2 * index + 1]));
    if (result === null) continue;
    rows++;
    const { checked, value } = result;
    if ('copy' in checked) copy.push(checked.copy);
    else rejected.push({ line, reason: checked.reason, record: setup.keepRecords ? value : undefined });
  }
  return { id, copy: copy.join(''), rows, rejected };
}
