// How long the console's imports are kept (docs/operate/retention.md): an upload never started
// goes with its file a day after it was uploaded; a finished or failed import, with its refused
// rows, after RETENTION_IMPORTS_MS. The file of an import that ran was deleted when it ended.

import { sql } from '../db/pool.ts';
import { daysBefore, msBefore, type RetentionRule } from '../db/retention.ts';

export const importRetention: RetentionRule[] = [
  {
    table: 'imports',
    rule: 'console uploads never started, a day after upload; imports ended more than RETENTION_IMPORTS_MS ago, with their refused rows',
    where: (config, now) => sql.fragment`
      (status in ('uploading', 'uploaded') and created_at < ${daysBefore(now, 1).toISOString()}::timestamptz)
      or (status in ('finished', 'failed') and finished_at < ${msBefore(now, config.RETENTION_IMPORTS_MS).toISOString()}::timestamptz)
    `,
  },
];
