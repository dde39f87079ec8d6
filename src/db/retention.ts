// Retention: rules that say which rows of a growing table may go, and pruning them in small
// batches. Each batch is one short statement that deletes at most `batchSize` rows picked by ctid
// and skips rows another transaction holds, so it never waits on, nor long blocks, the hot paths
// writing the same table. Features declare their rules; the composition layer lists them all
// (src/app/retention.ts, from each feature's `retention`), schedules the pruning and offers
// `switchboard prune`.

import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { firstIdAt, type IdKind } from './ids.ts';
import { type Db, sql } from './pool.ts';

export type RetentionRule = {
  /** The table rows are deleted from (children may follow by `on delete cascade`). */
  table: string;
  /** What goes, in words (for `prune --dry-run` and docs/operate/retention.md). */
  rule: string;
  /** The condition on `table` of the rows that may go now; null when the operator set no limit. */
  where: (config: Config, now: Date) => FragmentSqlToken | null;
};

/** The moment `ms` milliseconds before `now` (retention settings are in milliseconds). */
export function msBefore(now: Date, ms: number): Date {
  return new Date(now.getTime() - ms);
}

/** The moment `days` before `now`. */
export function daysBefore(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
}

/**
 * Rows of ids of `kind` made before `cutoff`: found on the primary key (ids sort by the time they
 * were made, so hot tables need no index on their time) and confirmed on the row's own `column`.
 */
export function madeBefore(kind: IdKind, column: string, cutoff: Date): FragmentSqlToken {
  return sql.fragment`id < ${firstIdAt(kind, cutoff)} and ${sql.identifier([column])} < ${cutoff.toISOString()}::timestamptz`;
}

const Count = z.object({ count: z.number().int() });

/** How many rows the rule would delete now (null: the rule is off). */
export async function countPrunable(db: Db, rule: RetentionRule, config: Config, now = new Date()) {
  const where = rule.where(config, now);
  if (where === null) return null;
  return db.oneFirst(sql.type(Count)`
    select count(*)::int as count from ${sql.identifier([rule.table])} where ${where}
  `);
}

/** Deletes one batch; returns how many rows went. */
export async function pruneBatch(
  db: Db,
  rule: RetentionRule,
  config: Config,
  batchSize: number,
  now = new Date(),
) {
  const where = rule.where(config, now);
  if (where === null) return 0;
  const table = sql.identifier([rule.table]);
  const result = await db.query(sql.typeAlias('void')`
    delete from ${table} where ctid = any(array(
      select ctid from ${table} where ${where} limit ${batchSize} for update skip locked
    ))
  `);
  return result.rowCount;
}

export type PruneOptions = { batchSize: number; pauseMs: number; deadline: number };

/**
 * Prunes batch after batch until nothing is left or the deadline passes (the next run goes on);
 * a pause between batches leaves room for everything else. Returns how many rows went.
 */
export async function pruneTable(db: Db, rule: RetentionRule, config: Config, options: PruneOptions) {
  let total = 0;
  const now = new Date();
  while (Date.now() < options.deadline) {
    const deleted = await pruneBatch(db, rule, config, options.batchSize, now);
    total += deleted;
    if (deleted < options.batchSize) break;
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
  }
  return total;
}
