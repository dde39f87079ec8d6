// A merged contact's old id resolves to the contact it joined until its alias expires; expired
// aliases resolve nothing and go.

import { sql } from '../db/pool.ts';
import type { RetentionRule } from '../db/retention.ts';

export const contactRetention: RetentionRule[] = [
  {
    table: 'contact_aliases',
    rule: 'aliases of merged contacts past their expiry',
    where: () => sql.fragment`expires_at < now()`,
  },
];
