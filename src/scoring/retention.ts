// Lead score history is kept unless the operator sets RETENTION_SCORE_HISTORY_DAYS; the scores
// themselves live on the contacts and are never pruned.

import { firstIdAt } from '../db/ids.ts';
import { sql } from '../db/pool.ts';
import { daysBefore, type RetentionRule } from '../db/retention.ts';

export const scoringRetention: RetentionRule[] = [
  {
    table: 'score_changes',
    rule: 'lead score history older than RETENTION_SCORE_HISTORY_DAYS (unset: kept)',
    where: (config, now) => {
      if (config.RETENTION_SCORE_HISTORY_DAYS === undefined) return null;
      const cutoff = daysBefore(now, config.RETENTION_SCORE_HISTORY_DAYS);
      return sql.fragment`id < ${firstIdAt('scoreChange', cutoff)} and created_at < ${cutoff.toISOString()}::timestamptz`;
    },
  },
];
