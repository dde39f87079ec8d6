// `switchboard import contacts|events FILE`: streams the file through validation into a staging
// table by COPY, then merges it and applies the side effects in ONE transaction: any refusal (a
// bad row without --skip-invalid, an error) commits nothing, and --dry-run rolls the whole of it
// back after counting what it would have done.
import type { CliContext } from '../cli/context.ts';
import { wakeOutbox } from '../outbox/emit.ts';
import { requireWorkspace } from '../workspaces/index.ts';
import { type ImportOptions, load, Rejects } from './loadFile.ts';
import { mergeContacts, mergeEvents } from './merge.ts';
import { phaseClock } from './progress.ts';
import { CONTACT_COLUMNS, EVENT_COLUMNS } from './rows.ts';
import { createStaging } from './stage.ts';
import { prepareMerge } from './stagingQueries.ts';

export type { ImportOptions } from './loadFile.ts';

/** The staging columns an events merge joins, groups and filters on (their statistics matter). */
const EVENT_KEY_COLUMNS = ['row_key', 'contact_ref', 'email', 'anonymous_id', 'skip'];

/** Thrown out of the merge's transaction to roll a dry run back, with what it counted. */
class DryRun extends Error {
  readonly summary: Record<string, unknown>;
  constructor(summary: Record<string, unknown>) {
    super('dry run');
    this.summary = summary;
  }
}

export async function importFile(context: CliContext, options: ImportOptions) {
  await requireWorkspace(context, options.workspaceId);
  const started = Date.now();
  const clock = phaseClock();
  const columns = options.kind === 'contacts' ? CONTACT_COLUMNS : EVENT_COLUMNS;
  const extra = options.kind === 'contacts' ? [] : ['contact_id text'];
  const staging = await createStaging(context.databaseUrl, [...columns, ...extra], columns.length);
  const rejects = new Rejects(options.rejects, options.progress.refused);
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
