// Invitations are link tokens: once accepted or expired they are kept a week (so the link can
// still say which), then go.

import { sql } from '../db/pool.ts';
import { daysBefore, type RetentionRule } from '../db/retention.ts';

const KEPT_DAYS = 7;

export const workspaceRetention: RetentionRule[] = [
  {
    table: 'invitations',
    rule: `invitations accepted or expired more than ${KEPT_DAYS} days ago`,
    where: (_config, now) => {
      const cutoff = daysBefore(now, KEPT_DAYS).toISOString();
      return sql.fragment`(accepted_at < ${cutoff}::timestamptz or (accepted_at is null and expires_at < ${cutoff}::timestamptz))`;
    },
  },
];
