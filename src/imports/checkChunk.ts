// Checking an NDJSON import's rows a chunk of whole lines at a time, on a thread of its own
// (src/imports/checkThread.ts) or on the main one (src/imports/checkThreads.ts shares the work):
// each line broken and read as src/imports/read.ts says (LINE_BREAK, ndjsonValue), checked and turned
// into COPY text with the ids of its line, so any thread makes the same ids for it.
import type { IdSeed, RowIds } from './bulkIds.ts';
import { LINE_BREAK, ndjsonValue } from './read.ts';
import { checkRow, type ImportKind } from './rows.ts';

export type CheckSetup = { kind: ImportKind; seed: IdSeed; keepRecords: boolean };
/** Whole lines of the file (their bytes, moved to the thread), the first of them numbered `firstLine`. */
export type ChunkRequest = { id: number; bytes: Uint8Array; firstLine: number };
export type Rejected = { line: number; reason: string; record?: unknown };
/** The chunk's rows in COPY text, how many there were (blank lines aside) and those refused. */
export type CheckedChunk = { id: number; copy: string; rows: number; rejected: Rejected[] };

export function checkChunk(
  setup: CheckSetup,
  ids: RowIds,
  { id, bytes, firstLine }: ChunkRequest,
): CheckedChunk {
  const lines = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('utf8')
    .split(LINE_BREAK);
  // The chunk ends with a line break (the last one of the file may not): no line after it.
  if (lines.at(-1) === '') lines.pop();
  const copy: string[] = [];
  const rejected: Rejected[] = [];
  let rows = 0;
  for (const [index, text] of lines.entries()) {
    const line = firstLine + index;
    const read = ndjsonValue(text);
    if (read === null) continue;
    rows++;
    const checked = 'value' in read ? checkRow(setup.kind, line, read.value, ids) : { reason: read.error };
    if ('copy' in checked) copy.push(checked.copy);
    else
      rejected.push({
        line,
        reason: checked.reason,
        record: setup.keepRecords && 'value' in read ? read.value : undefined,
      });
  }
  return { id, copy: copy.join(''), rows, rejected };
}
