// Tracking hits are kept unless the operator sets RETENTION_TRACKING_HITS_MS: campaign reports
// count them (human opens and clicks, machine hits), so pruning lowers the figures of older
// messages. Only classified hits go; the worker still needs the others.
import { sql } from '../db/pool.ts';
import { msBefore, type RetentionRule } from '../db/retention.ts';

export const trackingRetention: RetentionRule[] = [
  {
    table: 'message_hits',
    rule: 'classified open and click hits older than RETENTION_TRACKING_HITS_MS (unset: kept)',
    where: (config, now) => {
      if (config.RETENTION_TRACKING_HITS_MS === undefined) return null;
      const cutoff = msBefore(now, config.RETENTION_TRACKING_HITS_MS).toISOString();
      return sql.fragment`classified_at is not null and occurred_at < ${cutoff}::timestamptz`;
    },
  },
];
