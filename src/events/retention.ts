// What of the event tables may go: idempotency keys a week after their claim (the promise is 24
// hours), and events only when the operator sets RETENTION_EVENTS_DAYS (segments and reports read
// them, so by default every event is kept).

import { sql } from '../db/pool.ts';
import { daysBefore, madeBefore, type RetentionRule } from '../db/retention.ts';

export const IDEMPOTENCY_KEY_DAYS = 7;

export const eventRetention: RetentionRule[] = [
  {
    table: 'event_idempotency_keys',
    rule: `idempotency keys claimed more than ${IDEMPOTENCY_KEY_DAYS} days ago (the replay window is 24 hours)`,
    where: (_config, now) =>
      sql.fragment`created_at < ${daysBefore(now, IDEMPOTENCY_KEY_DAYS).toISOString()}::timestamptz`,
  },
  {
    table: 'events',
    rule: 'events received more than RETENTION_EVENTS_DAYS ago (unset: kept)',
    where: (config, now) => {
      if (config.RETENTION_EVENTS_DAYS === undefined) return null;
      return madeBefore('event', 'received_at', daysBefore(now, config.RETENTION_EVENTS_DAYS));
    },
  },
];
