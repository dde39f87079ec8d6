// What of the webhook tables may go (RETENTION_WEBHOOK_DELIVERIES_DAYS, 30 by default): delivery
// records (attempts and inbound receipts), finished outbound messages with their bodies, and the
// outgoing events already fanned out. Old rows are found on the primary key: ids sort by the time
// they were made (src/db/ids.ts), so no index on the time is needed on these hot tables.

import { firstIdAt } from '../db/ids.ts';
import { sql } from '../db/pool.ts';
import { daysBefore, type RetentionRule } from '../db/retention.ts';

const cutoffOf = (days: number, now: Date) => daysBefore(now, days);

export const webhookRetention: RetentionRule[] = [
  {
    table: 'webhook_deliveries',
    rule: 'delivery attempts and inbound receipts older than RETENTION_WEBHOOK_DELIVERIES_DAYS',
    where: (config, now) => {
      const cutoff = cutoffOf(config.RETENTION_WEBHOOK_DELIVERIES_DAYS, now);
      return sql.fragment`id < ${firstIdAt('delivery', cutoff)} and created_at < ${cutoff.toISOString()}::timestamptz`;
    },
  },
  {
    table: 'webhook_messages',
    rule: 'outbound messages (bodies) no longer pending, older than RETENTION_WEBHOOK_DELIVERIES_DAYS',
    where: (config, now) => {
      const cutoff = cutoffOf(config.RETENTION_WEBHOOK_DELIVERIES_DAYS, now);
      return sql.fragment`id < ${firstIdAt('webhookMessage', cutoff)} and created_at < ${cutoff.toISOString()}::timestamptz
        and status <> 'pending'`;
    },
  },
  {
    table: 'outgoing_events',
    rule: 'outgoing events fanned out more than RETENTION_WEBHOOK_DELIVERIES_DAYS ago',
    where: (config, now) => {
      const cutoff = cutoffOf(config.RETENTION_WEBHOOK_DELIVERIES_DAYS, now);
      return sql.fragment`id < ${firstIdAt('outgoingEvent', cutoff)} and fanned_out_at < ${cutoff.toISOString()}::timestamptz`;
    },
  },
];
