// What of the event tables may go by row: idempotency keys a week after their claim (the promise is
// 24 hours). Events themselves go by whole months, when the operator sets RETENTION_EVENTS_MS
// (partitions.ts): deleting their rows by ctid, as these rules do, cannot work on a partitioned
// table, whose ctids repeat from one partition to the next.

import { sql } from '../db/pool.ts';
import { daysBefore, type RetentionRule } from '../db/retention.ts';

export const IDEMPOTENCY_KEY_DAYS = 7;

export const eventRetention: RetentionRule[] = [
  {
    table: 'event_idempotency_keys',
    rule: `idempotency keys claimed more than ${IDEMPOTENCY_KEY_DAYS} days ago (the replay window is 24 hours)`,
    where: (_config, now) =>
      sql.fragment`created_at < ${daysBefore(now, IDEMPOTENCY_KEY_DAYS).toISOString()}::timestamptz`,
  },
];
