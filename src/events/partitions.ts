// The monthly partitions of events (sql/0031): made ahead by `switchboard migrate` and by an hourly
// schedule, and dropped whole by retention (RETENTION_EVENTS_MS, run with the other retention
// rules by src/app/retention.ts). The SQL functions do the work;
// this module calls them, each in a transaction of its own under a short lock timeout: attaching a
// partition locks the default partition and dropping one locks events, each for an instant, but
// queueing for those locks behind a long-running read would hold every ingest up behind it. A run
// that times out changes nothing and the next one tries again (partitions are made months ahead).
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { AppContext } from '../core/context.ts';
import { type Db, sql } from '../db/pool.ts';
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

export const EVENT_RETENTION_RULE =
  'whole months of events older than RETENTION_EVENTS_MS, by occurred_at: their partitions are dropped (unset: kept)';

/** Events retention's cutoff now; null when the operator set none. */
export function eventRetentionCutoff(settings: Config, now = new Date()): Date | null {
  const kept = settings.RETENTION_EVENTS_MS;
  return kept === undefined ? null : new Date(now.getTime() - kept);
}

/** The events dropping partitions before `cutoff` would remove: its months' and the default's older rows. */
export async function countEventsBefore(db: Db, cutoff: Date): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number().int() }))`
    with bounds as (
      select ${cutoff.toISOString()}::timestamptz as cutoff,
        date_trunc('month', ${cutoff.toISOString()}::timestamptz at time zone 'UTC') at time zone 'UTC' as month)
    select ((select count(*) from events, bounds where occurred_at < bounds.month)
      + (select count(*) from events_default, bounds
         where occurred_at >= bounds.month and occurred_at < bounds.cutoff))::int as count`);
}

/**
 * Retention of events (`switchboard prune` and its schedule): drops the months past
 * RETENTION_EVENTS_MS, or with `dryRun` only counts their events. Null when no retention is set.
 */
export async function pruneExpiredEvents(db: Db, settings: Config, dryRun = false, now = new Date()) {
  const cutoff = eventRetentionCutoff(settings, now);
  if (cutoff === null) return null;
  const count = await countEventsBefore(db, cutoff);
  if (!dryRun && count > 0) await dropEventPartitionsBefore(db, cutoff);
  return count;
}

export const eventPartitionsJob: JobDefinition = {
  name: PARTITIONS_QUEUE,
  // No retries: the next hourly run does the same, and months are made well ahead.
  queue: { retryLimit: 0, expireInSeconds: 600, notify: true },
  schedule: { cron: '17 * * * *' },
  handler: async (context: AppContext) => {
    const made = await ensureEventPartitions(context.db, context.config.EVENT_PARTITIONS_AHEAD_MONTHS);
    if (made.length) context.log.info({ made }, 'event partitions made');
  },
};
