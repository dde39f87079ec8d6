// The monthly partitions of events (sql/0031): made ahead by `switchboard migrate` and by an hourly
// schedule, and dropped whole by retention (RETENTION_EVENTS_DAYS). The SQL functions do the work;
// this module calls them, each in a transaction of its own under a short lock timeout: attaching a
// partition locks the default partition and dropping one locks events, each for an instant, but
// queueing for those locks behind a long-running read would hold every ingest up behind it. A run
// that times out changes nothing and the next one tries again (partitions are made months ahead).
import { z } from 'zod';
import type { Config } from '../config.ts';
import { type Db, sql } from '../db/pool.ts';
import type { AppContext } from '../http/context.ts';
import type { JobDefinition } from '../jobs/definition.ts';

export const PARTITIONS_QUEUE = 'events.partitions';
const LOCK_TIMEOUT = sql.unsafe`set local lock_timeout = '5s'`;
const Name = z.object({ name: z.string() });

/** Partitions for this month and `ahead` more, and for months with rows in the default; returns those made. */
export async function ensureEventPartitions(db: Db, ahead: number): Promise<readonly string[]> {
  return db.transaction(async (tx) => {
    await tx.query(LOCK_TIMEOUT);
    return tx.anyFirst(
      sql.type(Name)`select name from switchboard_ensure_event_partitions(${ahead}) as name`,
    );
  });
}

/** Drops the months that ended before `cutoff` (and default-partition rows older); returns those dropped. */
export async function dropEventPartitionsBefore(db: Db, cutoff: Date): Promise<readonly string[]> {
  return db.transaction(async (tx) => {
    await tx.query(LOCK_TIMEOUT);
    return tx.anyFirst(sql.type(Name)`
      select name from switchboard_drop_event_partitions(${cutoff.toISOString()}::timestamptz) as name`);
  });
}

/** Retention first (so no partition is made for rows about to go), then the months ahead. */
export async function maintainEventPartitions(db: Db, settings: Config, now = new Date()) {
  const days = settings.RETENTION_EVENTS_DAYS;
  const dropped =
    days === undefined
      ? []
      : await dropEventPartitionsBefore(db, new Date(now.getTime() - days * 86_400_000));
  const made = await ensureEventPartitions(db, settings.EVENT_PARTITIONS_AHEAD_MONTHS);
  return { made, dropped };
}

export const eventPartitionsJob: JobDefinition = {
  name: PARTITIONS_QUEUE,
  // No retries: the next hourly run does the same, and months are made well ahead.
  queue: { retryLimit: 0, expireInSeconds: 600 },
  schedule: { cron: '17 * * * *' },
  handler: async (context: AppContext) => {
    const { made, dropped } = await maintainEventPartitions(context.db, context.config);
    if (made.length || dropped.length) context.log.info({ made, dropped }, 'event partitions maintained');
  },
};
