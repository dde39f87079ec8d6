// The daily entry and exit counts (sql/0046) feed 30-day charts; 90 days are kept, so a quarter's
// figures can still be read by hand, and the table stops growing with the segment's age.

import { sql } from '../db/pool.ts';
import { daysBefore, type RetentionRule } from '../db/retention.ts';

export const SEGMENT_ACTIVITY_KEPT_DAYS = 90;

export const segmentRetention: RetentionRule[] = [
  {
    table: 'segment_daily_changes',
    rule: `daily segment entry and exit counts older than ${SEGMENT_ACTIVITY_KEPT_DAYS} days`,
    where: (_config, now) =>
      sql.fragment`day < ${daysBefore(now, SEGMENT_ACTIVITY_KEPT_DAYS).toISOString().slice(0, 10)}::date`,
  },
];
