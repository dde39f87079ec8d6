// The worker's part of a console import: the uploaded chunks written back to a file of its own,
// then the CLI's import (importFile: the same reading, checks, staging, merge and side effects in
// one transaction), with the valid rows imported and the refused ones kept with their line,
// reason and text. Progress goes to the import's row as it runs (the page polls it); the file's
// chunks are deleted when the import ends, whatever the outcome.
import { AsyncResource } from 'node:async_hooks';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { AppContext } from '../core/context.ts';
import { createDatabasePool } from '../db/pool.ts';
import { jsonLimitsOf } from '../http/jsonLimits.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { importFile } from './importFile.ts';
import { ImportRefused } from './loadFile.ts';
import type { CsvMapping, ImportTarget } from './mapping.ts';
import type { Progress } from './progress.ts';
import { keepRejects } from './rejectsFile.ts';
import {
  chunksFrom,
  claimImport,
  endImport,
  findImport,
  type ImportRow,
  reportProgress,
} from './uploadQueries.ts';

export const IMPORT_QUEUE = 'imports.console';
const Payload = z.object({ workspaceId: z.string(), importId: z.string() });
export type ImportJob = z.infer<typeof Payload>;

/** Connections of an import's own pool, as many as the CLI's (src/cli/context.ts). */
const IMPORT_POOL_SIZE = 4;
/** The progress written at most this often (and at each phase). */
const REPORT_MS = 500;

const INTERRUPTED =
  'The worker stopped while this import ran. An import commits all at once: unless it had finished, nothing of it was kept. Upload the file again to import it (events with an id are never imported twice).';
const FAILED = 'The import failed unexpectedly and nothing was imported. The worker’s log says why.';

/** The file's chunks, in order, into `path` (a few chunks in memory at a time). */
async function writeUpload(app: AppContext, row: ImportRow, workspaceId: string, path: string) {
  const out = createWriteStream(path);
  let seq = 0;
  for (;;) {
    const chunks = await chunksFrom(app.db, workspaceId, row.id, seq, 4);
    if (chunks.length === 0) break;
    for (const chunk of chunks) if (!out.write(chunk.bytes)) await once(out, 'drain');
    seq = chunks.at(-1)!.seq + 1;
  }
  out.end();
  await once(out, 'finish');
}

/** The import's Progress, written to its row (throttled; each write waits for the one before). */
function progressReport(app: AppContext, workspaceId: string, importId: string) {
  const counter = { bytes: 0 };
  let rows = 0;
  let refused = 0;
  let phase = 'reading the file';
  let written = 0;
  let writing = Promise.resolve();
  // Phases are reported from inside the merge's transaction, where slonik refuses a query of any
  // other connection: the write runs in the async context of this function's caller instead.
  const write = AsyncResource.bind((snapshot: Parameters<typeof reportProgress>[3]) =>
    reportProgress(app.db, workspaceId, importId, snapshot),
  );
  const report = (now = false) => {
    if (!now && Date.now() - written < REPORT_MS) return;
    written = Date.now();
    const snapshot = { phase, bytesRead: counter.bytes, rowsRead: rows, refused };
    writing = writing
      .then(() => write(snapshot))
      .catch((error: unknown) => app.log.warn({ err: error, importId }, 'import: progress not written'));
  };
  const progress: Progress = {
    counter,
    rows: (count) => {
      rows += count;
      report();
    },
    phase: (text) => {
      phase = text;
      report(true);
    },
    done: () => {},
    refused: () => {
      refused++;
      report();
    },
  };
  return { progress, rowsRead: () => rows, settled: () => writing };
}

const mappingOf = (row: ImportRow): CsvMapping | undefined =>
  row.format === 'csv'
    ? row.columns.map((column, i) => ({ column, target: (row.targets[i] ?? 'ignore') as ImportTarget }))
    : undefined;

/** What the page shows of the summary (the CLI's, without its file paths and timings by phase). */
function keptSummary(summary: Record<string, unknown>) {
  const { file: _file, rejectsFile: _rejects, phases: _phases, ...kept } = summary;
  return kept;
}

async function runImport(app: AppContext, row: ImportRow, workspaceId: string, dir: string) {
  const file = join(dir, 'upload');
  const rejectsPath = join(dir, 'rejects.ndjson');
  await writeUpload(app, row, workspaceId, file);
  const report = progressReport(app, workspaceId, row.id);
  let summary: Awaited<ReturnType<typeof importFile>>;
  // A pool of its own, as the CLI's: the merge's statements run as long as they need (it lifts
  // statement_timeout), which the worker's pool would cut at DATABASE_QUERY_TIMEOUT_MS, and the
  // import holds its connections without taking the workspace's share of the shared pool.
  const pool = await createDatabasePool(app.databaseUrl, { maxPoolSize: IMPORT_POOL_SIZE });
  try {
    summary = await importFile(
      { db: pool, config: app.config, databaseUrl: app.databaseUrl },
      {
        kind: row.kind,
        file,
        format: row.format,
        workspaceId,
        dryRun: false,
        skipInvalid: true,
        rejects: rejectsPath,
        triggerCampaigns: row.trigger_campaigns,
        progress: report.progress,
        checkers: app.config.IMPORT_CHECKERS,
        limits: jsonLimitsOf(app.config),
        csvMapping: mappingOf(row),
      },
    );
  } catch (error) {
    await report.settled();
    if (!(error instanceof ImportRefused)) app.log.error({ err: error, importId: row.id }, 'import failed');
    await endImport(app.db, workspaceId, row.id, {
      status: 'failed',
      rowsRead: report.rowsRead(),
      imported: 0,
      refused: 0,
      summary: null,
      error: error instanceof ImportRefused ? error.message : FAILED,
    });
    return;
  } finally {
    await pool.end();
  }
  await report.settled();
  // Committed: from here on the import is finished, even if its refused rows cannot all be kept.
  const where = { db: app.db, workspaceId, importId: row.id };
  await keepRejects(where, file, row.format, rejectsPath).catch((error: unknown) =>
    app.log.error({ err: error, importId: row.id }, 'import: refused rows not kept'),
  );
  const counts = summary as Record<string, unknown>;
  const imported =
    row.kind === 'contacts'
      ? Number(counts.created) + Number(counts.updated) + Number(counts.unchanged)
      : Number(counts.imported);
  await endImport(app.db, workspaceId, row.id, {
    status: 'finished',
    rowsRead: summary.rows,
    imported,
    refused: summary.invalid,
    summary: keptSummary(counts),
    error: null,
  });
}

/** Runs one queued import; a job retried after its worker died finds it running and fails it. */
export async function runConsoleImport(app: AppContext, job: ImportJob) {
  const row = await claimImport(app.db, job.workspaceId, job.importId);
  if (!row) {
    const current = await findImport(app.db, job.workspaceId, job.importId);
    if (current?.status === 'running')
      await endImport(app.db, job.workspaceId, job.importId, {
        status: 'failed',
        rowsRead: current.rows_read,
        imported: 0,
        refused: 0,
        summary: null,
        error: INTERRUPTED,
      });
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-import-'));
  try {
    await runImport(app, row, job.workspaceId, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const consoleImportJob: JobDefinition<ImportJob> = {
  name: IMPORT_QUEUE,
  // One retry: it only marks an import its dead worker left running as failed (never runs it twice).
  queue: { retryLimit: 1, retryDelay: 30, expireInSeconds: 6 * 3600, notify: true },
  work: { batchSize: 1, localConcurrency: 1, notifyPollingIntervalSeconds: 2 },
  handler: async (context, jobs) => {
    for (const job of jobs) await runConsoleImport(context, Payload.parse(job.data));
  },
};
