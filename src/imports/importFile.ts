// `switchboard import contacts|events FILE`: streams the file through validation into a staging
// table by COPY, then merges it and applies the side effects in ONE transaction: any refusal (a
// bad row without --skip-invalid, an error) commits nothing, and --dry-run rolls the whole of it
// back after counting what it would have done.
import { createWriteStream, type WriteStream } from 'node:fs';
import { sql as slonikSql } from 'slonik';
import type { CliContext } from '../cli/context.ts';
import type { Tx } from '../db/pool.ts';
import { wakeOutbox } from '../outbox/emit.ts';
import { requireWorkspace } from '../workspaces/index.ts';
import { type IdSeed, idSeed, type RowIds, rowIds } from './bulkIds.ts';
import type { Rejected } from './checkChunk.ts';
import { checkedChunks } from './checkThreads.ts';
import { markRepeatedEmails, upsertContacts } from './contactQueries.ts';
import {
  claimRowKeys,
  createPlannedContacts,
  createPlanTable,
  importedTypes,
  insertEvents,
  lockEventContacts,
  markRepeatedKeys,
  planNewContacts,
  resolveContactIds,
  resolveImportedEvents,
} from './eventQueries.ts';
import { type Progress, phaseClock } from './progress.ts';
import { csvRecords, type Format } from './read.ts';
import type { JsonLimits } from './rowLimits.ts';
import { CONTACT_COLUMNS, checkCsvRecord, csvRecord, EVENT_COLUMNS, type ImportKind } from './rows.ts';
import { applyImportEffects, type EffectCounts } from './sideEffects.ts';
import { createStaging, type Staging } from './stage.ts';
import { countSkips, prepareMerge, refusedRows, subscribedTypes } from './stagingQueries.ts';

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
};

/** Contacts per page of side effects: memory and statement size stay bounded whatever the file. */
const IMPORT_PAGE_CONTACTS = 500;
/**
 * Contacts per segment diff (a page reads only their ids back). A million-event import for 100,000
 * contacts: 200 diffs of 500 took 9.9 s, 100 of 1,000 6.2 s, 20 of 5,000 5.4 s once the
 * memberships' statistics are refreshed after the first page (refreshMembershipStatistics; before
 * that a diff of 5,000 took 7 s).
 */
const IMPORT_SEGMENT_PAGE_CONTACTS = 5_000;

/** The staging columns an events merge joins, groups and filters on (their statistics matter). */
const EVENT_KEY_COLUMNS = ['row_key', 'contact_ref', 'email', 'anonymous_id', 'skip'];

/** Bad rows listed in the error of a refused import (the count covers all of them). */
const SHOWN_ERRORS = 20;

export class ImportRefused extends Error {}
/** Thrown out of the merge's transaction to roll a dry run back, with what it counted. */
class DryRun extends Error {
  readonly summary: Record<string, unknown>;
  constructor(summary: Record<string, unknown>) {
    super('dry run');
    this.summary = summary;
  }
}

/** The rejects file, opened at the first rejected row: one JSON object a line, {line, reason, record?}. */
class Rejects {
  count = 0;
  private stream: WriteStream | null = null;
  private readonly path: string;
  constructor(path: string) {
    this.path = path;
  }

  async add(reject: { line: number; reason: string; record?: unknown }) {
    this.count++;
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

function refusal(bad: Bad[], total: number): ImportRefused {
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
    const read = 'error' in record ? { reason: record.error } : csvRecord(options.kind, record.value);
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
async function load(options: ImportOptions, staging: Staging, rejects: Rejects) {
  const seed = idSeed();
  const loaded: Loaded = { rows: 0, invalid: 0, bad: [] };
  if (options.format === 'ndjson') await loadNdjson(options, staging, rejects, seed, loaded);
  else await loadCsv(options, staging, rejects, rowIds(seed), loaded);
  await staging.finish();
  if (loaded.invalid > 0 && !options.skipInvalid) throw refusal(loaded.bad, loaded.invalid);
  return { rows: loaded.rows, invalid: loaded.invalid };
}

const contactsTaken = (count: number) =>
  `${count} contact${count === 1 ? '' : 's'} this file creates ${count === 1 ? 'was' : 'were'} created by someone ` +
  'else (the same email or anonymousId) while the import ran; nothing was imported: run it again.';

const contactsGone = (count: number) =>
  `${count} contact${count === 1 ? '' : 's'} of this file ${count === 1 ? 'was' : 'were'} deleted or merged ` +
  'while the import ran; nothing was imported: run it again.';

/** Rows the merge refused (an unknown contactId): refuse the import, or reject them too. */
async function refuseOrReject(
  tx: Tx,
  options: ImportOptions,
  staging: string,
  rejects: Rejects,
  refused: number,
) {
  if (refused === 0) return;
  if (!options.skipInvalid) {
    const rows = await refusedRows(tx, staging, SHOWN_ERRORS);
    throw refusal(
      rows.map((row) => ({ line: row.line, reason: row.skip.replace(/^invalid: /, '') })),
      refused,
    );
  }
  let last = 0;
  for (;;) {
    const rows = await refusedRows(tx, staging, 1000, last);
    if (rows.length === 0) return;
    for (const row of rows) await rejects.add({ line: row.line, reason: row.skip.replace(/^invalid: /, '') });
    last = rows.at(-1)!.line;
  }
}

const listens = (types: Set<string> | 'all', type: string) => types === 'all' || types.has(type);

type Lap = (phase: string) => void;

async function mergeEvents(tx: Tx, options: ImportOptions, stagingName: string, rejects: Rejects, lap: Lap) {
  const staging = slonikSql.identifier([stagingName]);
  const { workspaceId } = options;
  const types = await subscribedTypes(tx, workspaceId);
  options.progress.phase('matching contacts');
  await markRepeatedKeys(tx, staging);
  await resolveContactIds(tx, workspaceId, staging);
  await refuseOrReject(tx, options, stagingName, rejects, (await countSkips(tx, stagingName)).refused);
  await claimRowKeys(tx, workspaceId, staging);
  await createPlanTable(tx);
  const contactsCreated =
    (await planNewContacts(tx, workspaceId, staging, 'email')) +
    (await planNewContacts(tx, workspaceId, staging, 'anonymous_id'));
  await resolveImportedEvents(tx, workspaceId, staging);
  const gone = await lockEventContacts(tx, workspaceId);
  if (gone > 0) throw new ImportRefused(contactsGone(gone));
  lap('contacts');
  options.progress.phase('inserting events');
  await insertEvents(tx, workspaceId, listens(types, 'event.tracked'));
  lap('events');
  options.progress.phase('scores, segments and webhooks');
  const effects = await applyImportEffects(tx, {
    workspaceId,
    events: true,
    eventTypes: await importedTypes(tx),
    triggerCampaigns: options.triggerCampaigns,
    emitScores: listens(types, 'contact.score_changed'),
    pageSize: IMPORT_PAGE_CONTACTS,
    segmentPageSize: IMPORT_SEGMENT_PAGE_CONTACTS,
    lap,
    createContacts: async () => {
      const taken = await createPlannedContacts(tx, workspaceId, listens(types, 'contact.created'));
      if (taken > 0) throw new ImportRefused(contactsTaken(taken));
    },
  });
  const skips = await countSkips(tx, stagingName);
  return {
    imported: skips.kept,
    duplicates: skips.duplicates,
    alreadyImported: skips.alreadyImported,
    contactsCreated,
    ...effects,
  };
}

async function mergeContacts(tx: Tx, options: ImportOptions, stagingName: string, lap: Lap) {
  const staging = slonikSql.identifier([stagingName]);
  const types = await subscribedTypes(tx, options.workspaceId);
  options.progress.phase('merging contacts');
  await markRepeatedEmails(tx, staging);
  const { created, updated } = await upsertContacts(tx, options.workspaceId, staging, {
    created: listens(types, 'contact.created'),
    updated: listens(types, 'contact.updated'),
  });
  lap('contacts');
  options.progress.phase('segments and webhooks');
  const effects: EffectCounts = await applyImportEffects(tx, {
    workspaceId: options.workspaceId,
    events: false,
    eventTypes: [],
    triggerCampaigns: options.triggerCampaigns,
    emitScores: false,
    pageSize: IMPORT_PAGE_CONTACTS,
    segmentPageSize: IMPORT_SEGMENT_PAGE_CONTACTS,
    lap,
  });
  const skips = await countSkips(tx, stagingName);
  return {
    created,
    updated,
    unchanged: skips.kept - created - updated,
    duplicates: skips.duplicates,
    entered: effects.entered,
    exited: effects.exited,
    enrollments: effects.enrollments,
  };
}

export async function importFile(context: CliContext, options: ImportOptions) {
  await requireWorkspace(context, options.workspaceId);
  const started = Date.now();
  const clock = phaseClock();
  const columns = options.kind === 'contacts' ? CONTACT_COLUMNS : EVENT_COLUMNS;
  const extra = options.kind === 'contacts' ? [] : ['contact_id text'];
  const staging = await createStaging(context.databaseUrl, [...columns, ...extra], columns.length);
  const rejects = new Rejects(options.rejects);
  try {
    clock.lap('start');
    const loaded = await load(options, staging, rejects);
    clock.lap('load');
    let merged: Record<string, unknown>;
    try {
      merged = await context.db.transaction(async (tx) => {
        await prepareMerge(
          tx,
          staging.name,
          context.config.IMPORT_WORK_MEM_MB,
          options.kind === 'contacts' ? ['email', 'anonymous_id', 'skip'] : EVENT_KEY_COLUMNS,
        );
        const result =
          options.kind === 'contacts'
            ? await mergeContacts(tx, options, staging.name, clock.lap)
            : await mergeEvents(tx, options, staging.name, rejects, clock.lap);
        if (options.dryRun) throw new DryRun(result);
        clock.lap('other');
        return result;
      });
      clock.lap('commit');
      // Its webhook events were written set-wise, past `emit`: wake the dispatcher, no need to wait for its poll.
      await wakeOutbox(context.db);
    } catch (error) {
      if (!(error instanceof DryRun)) throw error;
      merged = error.summary;
    }
    const seconds = (Date.now() - started) / 1000;
    return {
      kind: options.kind,
      file: options.file,
      workspaceId: options.workspaceId,
      dryRun: options.dryRun,
      rows: loaded.rows,
      ...merged,
      invalid: rejects.count || loaded.invalid,
      rejectsFile: rejects.count ? options.rejects : null,
      seconds: Math.round(seconds * 1000) / 1000,
      rowsPerSecond: Math.round(loaded.rows / Math.max(seconds, 0.001)),
      phases: clock.phases,
    };
  } finally {
    options.progress.done();
    await rejects.close();
    await staging.drop();
  }
}
