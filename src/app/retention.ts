// Every retention rule of the service (each feature's `retention` and `pruners`), the pg-boss
// schedule that prunes by them (RETENTION_CRON, in batches of RETENTION_BATCH_SIZE) and
// `switchboard prune [--dry-run]`. They run in the order of the feature list, top down: a feature's
// rows that point at those below go first (src/app/features.ts).
// pg-boss's own finished jobs are deleted by pg-boss (deleteAfterSeconds, set from
// RETENTION_JOBS_MS in jobs.ts); they appear here only as a count.
import type { Command } from 'commander';
import { z } from 'zod';
import { print, run, withDatabase } from '../cli/context.ts';
import type { Config } from '../config.ts';
import type { AppContext } from '../core/context.ts';
import { type Db, sql } from '../db/pool.ts';
import { countPrunable, msBefore, pruneTable, type RetentionRule } from '../db/retention.ts';
import type { Pruner } from '../feature/definition.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { FEATURES } from './features.ts';

/** A feature's rules (batched deletes), then its pruners (whole partitions), feature by feature. */
export function retentionSteps(): (RetentionRule | Pruner)[] {
  return FEATURES.flatMap((feature) => [...(feature.retention ?? []), ...(feature.pruners ?? [])]);
}

const isPruner = (step: RetentionRule | Pruner): step is Pruner => 'prune' in step;

/** A scheduled run stops starting batches after this; the next run goes on where it stopped. */
const RUN_BUDGET_MS = 5 * 60 * 1000;
/** Breathing room between batches for the writes the pruned tables also take. */
const PAUSE_MS = 20;

export type PruneReport = { table: string; rule: string; rows: number | null }[];

export async function pruneAll(db: Db, config: Config, budgetMs = RUN_BUDGET_MS): Promise<PruneReport> {
  const deadline = Date.now() + budgetMs;
  const report: PruneReport = [];
  for (const step of retentionSteps()) {
    const rows = isPruner(step)
      ? await step.prune(db, config, false)
      : step.where(config, new Date()) === null
        ? null
        : await pruneTable(db, step, config, {
            batchSize: config.RETENTION_BATCH_SIZE,
            pauseMs: PAUSE_MS,
            deadline,
          });
    report.push({ table: step.table, rule: step.rule, rows });
  }
  return report;
}

const JOBS_RULE = 'finished jobs older than RETENTION_JOBS_MS (deleted by pg-boss maintenance)';

/** Finished pg-boss jobs past their retention, which pg-boss's maintenance deletes. */
async function countFinishedJobs(db: Db, config: Config): Promise<number> {
  const cutoff = msBefore(new Date(), config.RETENTION_JOBS_MS).toISOString();
  return db.oneFirst(sql.type(z.object({ count: z.number().int() }))`
    select count(*)::int as count from pgboss.job
    where state in ('completed', 'cancelled', 'failed') and completed_on < ${cutoff}::timestamptz
  `);
}

export async function dryRun(db: Db, config: Config): Promise<PruneReport> {
  const report: PruneReport = [];
  for (const step of retentionSteps()) {
    const rows = isPruner(step) ? await step.prune(db, config, true) : await countPrunable(db, step, config);
    report.push({ table: step.table, rule: step.rule, rows });
  }
  report.push({ table: 'pgboss.job', rule: JOBS_RULE, rows: await countFinishedJobs(db, config) });
  return report;
}

export function retentionJob(config: Config): JobDefinition {
  return {
    name: 'retention.prune',
    queue: { retryLimit: 0, expireInSeconds: RUN_BUDGET_MS / 1000 + 300, notify: true },
    schedule: { cron: config.RETENTION_CRON },
    handler: async (context: AppContext) => {
      const report = await pruneAll(context.db, context.config);
      const pruned = Object.fromEntries(
        report.filter((entry) => entry.rows).map((entry) => [entry.table, entry.rows]),
      );
      if (Object.keys(pruned).length > 0) context.log.info({ pruned }, 'retention: pruned old rows');
    },
  };
}

function reportText(report: PruneReport, verb: string): string {
  const width = Math.max(...report.map((entry) => entry.table.length));
  return report
    .map(
      (entry) =>
        `${entry.table.padEnd(width)}  ${entry.rows === null ? 'kept (no limit set)' : `${entry.rows} ${verb}`}  · ${entry.rule}`,
    )
    .join('\n');
}

export function installPruneCommand(program: Command): void {
  program
    .command('prune')
    .description(
      'delete what the retention rules say may go, now (the worker also does it on RETENTION_CRON)',
    )
    .option('--dry-run', 'count per table what would go, delete nothing')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: { dryRun?: boolean; json?: boolean }) => {
        const report = await withDatabase(({ db, config }) =>
          options.dryRun ? dryRun(db, config) : pruneAll(db, config, Number.POSITIVE_INFINITY),
        );
        print(!!options.json, report, () => reportText(report, options.dryRun ? 'would go' : 'deleted'));
      }),
    );
}
