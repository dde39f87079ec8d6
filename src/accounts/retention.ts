// Expired sessions and reset links go (connect-pg-simple also prunes them every 15 minutes; this covers a web
// process that never ran long enough to).

import { sql } from '../db/pool.ts';
import type { RetentionRule } from '../db/retention.ts';

export const accountRetention: RetentionRule[] = [
  {
    table: 'sessions',
    rule: 'sessions past their expiry',
    where: () => sql.fragment`expire < now()`,
  },
  {
    table: 'password_resets',
    rule: 'password reset links past their expiry',
    where: () => sql.fragment`expires_at < now()`,
  },
];
