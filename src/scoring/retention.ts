// Lead score history is kept unless the operator sets RETENTION_SCORE_HISTORY_MS; the scores
// themselves live on the contacts and are never pruned.

import { madeBefore, msBefore, type RetentionRule } from '../db/retention.ts';

export const scoringRetention: RetentionRule[] = [
  {
    table: 'score_changes',
    rule: 'lead score history older than RETENTION_SCORE_HISTORY_MS (unset: kept)',
    where: (config, now) => {
      if (config.RETENTION_SCORE_HISTORY_MS === undefined) return null;
      return madeBefore('scoreChange', 'created_at', msBefore(now, config.RETENTION_SCORE_HISTORY_MS));
    },
  },
];
