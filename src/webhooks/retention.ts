// What of the webhook tables may go (RETENTION_WEBHOOK_DELIVERIES_MS, 30 by default): delivery
// records (attempts and inbound receipts), finished outbound messages with their bodies, and the
// outgoing events already fanned out. Old rows are found on the primary key: ids sort by the time
// they were made (src/db/ids.ts), so no index on the time is needed on these hot tables.

import { sql } from '../db/pool.ts';
import { madeBefore, msBefore, type RetentionRule } from '../db/retention.ts';

export const webhookRetention: RetentionRule[] = [
  {
    table: 'webhook_deliveries',
    rule: 'delivery attempts and inbound receipts older than RETENTION_WEBHOOK_DELIVERIES_MS',
    where: (config, now) => {
      return madeBefore('delivery', 'created_at', msBefore(now, config.RETENTION_WEBHOOK_DELIVERIES_MS));
    },
  },
  {
    table: 'webhook_messages',
    rule: 'outbound messages (bodies) no longer pending, older than RETENTION_WEBHOOK_DELIVERIES_MS',
    where: (config, now) => {
      const cutoff = msBefore(now, config.RETENTION_WEBHOOK_DELIVERIES_MS);
      // A finished message replayed (a manual attempt queued) stays until that attempt is made.
      return sql.fragment`${madeBefore('webhookMessage', 'created_at', cutoff)} and status <> 'pending'
        and not exists (select 1 from webhook_attempts a
                        where a.workspace_id = webhook_messages.workspace_id and a.message_id = webhook_messages.id)`;
    },
  },
  {
    table: 'outgoing_events',
    rule: 'outgoing events fanned out more than RETENTION_WEBHOOK_DELIVERIES_MS ago',
    where: (config, now) => {
      return madeBefore(
        'outgoingEvent',
        'fanned_out_at',
        msBefore(now, config.RETENTION_WEBHOOK_DELIVERIES_MS),
      );
    },
  },
];
