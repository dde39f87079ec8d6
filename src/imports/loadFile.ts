// Reading an import's file into its staging table: CSV checked on this thread, NDJSON by threads,
// each row valid or refused. A refused row goes to the rejects file with --skip-invalid; without
// it the first few are remembered and the import is refused, naming them.
import { createWriteStream, type WriteStream } from 'node:fs';
import { type IdSeed, idSeed, type RowIds, rowIds } from './bulkIds.ts';
import type { Rejected } from './checkChunk.ts';
import { checkedChunks } from './checkThreads.ts';
import type { CsvMapping } from './mapping.ts';
import type { Progress } from './progress.ts';
import { csvRecords, type Format } from './read.ts';
import type { JsonLimits } from './rowLimits.ts';
import { checkCsvRecord, csvRecord, type ImportKind } from './rows.ts';
import type { Staging } from './stage.ts';

export type ImportOptions = {
  kind: ImportKind;
  file: string;
  format: Format;
  workspaceId: string;
  dryRun: boolean;
  skipInvalid: boolean;
  rejects: string;
  triggerCampaigns: boolean;
  progress: Progress;
  /** Threads that check an NDJSON file's rows, the main one included (IMPORT_CHECKERS). */
  checkers?: number;
  /** The API's limits of a JSON body (JSON_MAX_*), each row held to them. */
  limits: JsonLimits;
  /** Where each CSV column goes (the console's choice); without it, the columns' names say. */
  csvMapping?: CsvMapping;
};

/** Bad rows listed in the error of a refused import (the count covers all of them). */
export const SHOWN_ERRORS = 20;

export class ImportRefused extends Error {}

/** The rejects file, opened at the first rejected row: one JSON object a line, {line, reason, record?}. */
export class Rejects {
  count = 0;
  private stream: WriteStream | null = null;
  private readonly path: string;
  private readonly added?: () => void;
  constructor(path: string, added?: () => void) {
    this.path = path;
    this.added = added;
  }

  async add(reject: { line: number; reason: string; record?: unknown }) {
    this.count++;
    this.added?.();
    this.stream ??= createWriteStream(this.path);
    if (!this.stream.write(`${JSON.stringify(reject)}\n`))
      await new Promise<void>((resolve) => this.stream!.once('drain', () => resolve()));
  }

  async close() {
    const stream = this.stream;
    if (stream)
      await new Promise<void>((resolve, reject) =>
        stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
  }
}

type Bad = { line: number; reason: string };

export function refusal(bad: Bad[], total: number): ImportRefused {
  const lines = bad.slice(0, SHOWN_ERRORS).map((row) => `  line ${row.line}: ${row.reason}`);
  const more = total > SHOWN_ERRORS ? [`  … and ${total - SHOWN_ERRORS} more`] : [];
  return new ImportRefused(
    [
      `${total} invalid row${total === 1 ? '' : 's'}; nothing was imported (--skip-invalid imports the rest):`,
      ...lines,
      ...more,
    ].join('\n'),
  );
}

type Loaded = { rows: number; invalid: number; bad: Bad[] };

/** A refused row: into the rejects file with --skip-invalid, else remembered (the first few) to refuse. */
async function refuseRow(options: ImportOptions, loaded: Loaded, rejects: Rejects, row: Rejected) {
  loaded.invalid++;
  if (options.skipInvalid) await rejects.add(row);
  else if (loaded.bad.length < SHOWN_ERRORS) loaded.bad.push({ line: row.line, reason: row.reason });
}

/** CSV, read and checked on this thread (csv-parse: a quoted field may span lines). */
async function loadCsv(
  options: ImportOptions,
  staging: Staging,
  rejects: Rejects,
  ids: RowIds,
  loaded: Loaded,
) {
  for await (const record of csvRecords(options.file, options.progress.counter)) {
    loaded.rows++;
    options.progress.rows(1);
    const read =
      'error' in record
        ? { reason: record.error }
        : csvRecord(options.kind, record.value, options.csvMapping);
    const checked =
      'value' in read ? checkCsvRecord(options.kind, record.line, read.value, ids, options.limits) : read;
    if ('copy' in checked) await staging.write(checked.copy);
    else
      await refuseRow(options, loaded, rejects, {
        line: record.line,
        reason: checked.reason,
        record: 'value' in read ? read.value : undefined,
      });
  }
}

/** NDJSON, read here and checked by threads (src/imports/checkThreads.ts), in file order. */
async function loadNdjson(
  options: ImportOptions,
  staging: Staging,
  rejects: Rejects,
  seed: IdSeed,
  loaded: Loaded,
) {
  const setup = { kind: options.kind, seed, keepRecords: options.skipInvalid, limits: options.limits };
  const chunks = checkedChunks(options.file, setup, options.progress.counter, options.checkers);
  for await (const chunk of chunks) {
    loaded.rows += chunk.rows;
    options.progress.rows(chunk.rows);
    if (chunk.copy) await staging.write(chunk.copy);
    for (const row of chunk.rejected) await refuseRow(options, loaded, rejects, row);
  }
}

/** Streams the file into the staging table; bad rows go to `rejects` (or are remembered, to refuse). */
export async function load(options: ImportOptions, staging: Staging, rejects: Rejects) {
  const seed = idSeed();
  const loaded: Loaded = { rows: 0, invalid: 0, bad: [] };
  if (options.format === 'ndjson') await loadNdjson(options, staging, rejects, seed, loaded);
  else await loadCsv(options, staging, rejects, rowIds(seed), loaded);
  await staging.finish();
  if (loaded.invalid > 0 && !options.skipInvalid) throw refusal(loaded.bad, loaded.invalid);
  return { rows: loaded.rows, invalid: loaded.invalid };
}
