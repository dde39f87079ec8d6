// Lead score history is kept unless the operator sets RETENTION_SCORE_HISTORY_DAYS; the scores
// themselves live on the contacts and are never pruned.

import { daysBefore, madeBefore, type RetentionRule } from '../db/retention.ts';

export const scoringRetention: RetentionRule[] = [
  {
    table: 'score_changes',
    rule: 'lead score history older than RETENTION_SCORE_HISTORY_DAYS (unset: kept)',
    where: (config, now) => {
      if (config.RETENTION_SCORE_HISTORY_DAYS === undefined) return null;
      return madeBefore('scoreChange', 'created_at', daysBefore(now, config.RETENTION_SCORE_HISTORY_DAYS));
    },
  },
];
