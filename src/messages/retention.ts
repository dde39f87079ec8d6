// Messages are kept unless the operator sets RETENTION_MESSAGES_MS: then finished messages older
// than that go with their history (message_events) and idempotency keys. A message of an enrollment
// still running stays: its row is what makes the step send at most once.

import { sql } from '../db/pool.ts';
import { madeBefore, msBefore, type RetentionRule } from '../db/retention.ts';

export const messageRetention: RetentionRule[] = [
  {
    table: 'messages',
    rule: 'finished messages older than RETENTION_MESSAGES_MS, with their events (unset: kept)',
    where: (config, now) => {
      if (config.RETENTION_MESSAGES_MS === undefined) return null;
      const cutoff = msBefore(now, config.RETENTION_MESSAGES_MS);
      return sql.fragment`${madeBefore('message', 'created_at', cutoff)}
        and status in ('sent', 'failed', 'bounced', 'suppressed')
        and (enrollment_id is null or not exists (
          select 1 from enrollments e where e.workspace_id = messages.workspace_id and e.id = messages.enrollment_id
            and e.status = 'active'))`;
    },
  },
];
