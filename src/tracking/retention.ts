// Tracking hits are kept unless the operator sets RETENTION_TRACKING_HITS_DAYS: campaign reports
// count them (human opens and clicks, machine hits), so pruning lowers the figures of older
// messages. Only classified hits go; the worker still needs the others.
import { sql } from '../db/pool.ts';
import { daysBefore, type RetentionRule } from '../db/retention.ts';

export const trackingRetention: RetentionRule[] = [
  {
    table: 'message_hits',
    rule: 'classified open and click hits older than RETENTION_TRACKING_HITS_DAYS (unset: kept)',
    where: (config, now) => {
      if (config.RETENTION_TRACKING_HITS_DAYS === undefined) return null;
      const cutoff = daysBefore(now, config.RETENTION_TRACKING_HITS_DAYS).toISOString();
      return sql.fragment`classified_at is not null and occurred_at < ${cutoff}::timestamptz`;
    },
  },
];
