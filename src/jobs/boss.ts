// pg-boss, our job queue. It keeps its own pg pool (LISTEN/NOTIFY needs a pinned connection).
// Jobs are enqueued inside the transaction that made the change through `transactionalDb`, so a
// row and its job commit together or not at all.
import { PgBoss } from 'pg-boss';
import { z } from 'zod';
import type { Db } from '../db/pool.ts';
import { sql } from '../db/pool.ts';

export type Boss = PgBoss;

/** Web processes only enqueue; workers also run schedules and pg-boss maintenance. */
export function createBoss(
  databaseUrl: string,
  role: 'web' | 'worker' | 'cli',
  /** How often a worker looks for expired jobs (a killed worker's) to retry them. */
  superviseSeconds = 60,
): PgBoss {
  const working = role === 'worker';
  return new PgBoss({
    connectionString: databaseUrl,
    max: working ? 6 : 3,
    useListenNotify: working,
    schedule: working,
    supervise: working,
    superviseIntervalSeconds: superviseSeconds,
    monitorIntervalSeconds: superviseSeconds,
  });
}

const anyRow = z.record(z.string(), z.unknown());

/**
 * An adapter pg-boss accepts as its `db` option, running its SQL on a slonik connection or
 * transaction. slonik has no raw-text query, so the adapter builds the query token itself.
 */
export function transactionalDb(db: Db) {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      const token = { ...sql.type(anyRow)``, sql: text, values: values as never[] };
      const result = await db.query(token);
      return { rows: result.rows as Record<string, unknown>[] };
    },
  };
}
