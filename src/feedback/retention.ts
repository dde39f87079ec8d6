// Provider feedback logs go with the webhook logs (RETENTION_WEBHOOK_DELIVERIES_MS): the receipts
// of what each endpoint was sent, and the provider event ids that make a replay change nothing
// (providers stop retrying within days, so an id that old cannot come back).
import { sql } from '../db/pool.ts';
import { madeBefore, msBefore, type RetentionRule } from '../db/retention.ts';

export const feedbackRetention: RetentionRule[] = [
  {
    table: 'email_feedback_receipts',
    rule: 'provider feedback receipts older than RETENTION_WEBHOOK_DELIVERIES_MS',
    where: (config, now) =>
      madeBefore('feedbackReceipt', 'received_at', msBefore(now, config.RETENTION_WEBHOOK_DELIVERIES_MS)),
  },
  {
    table: 'email_feedback_events',
    rule: 'provider event ids (replay guard) older than RETENTION_WEBHOOK_DELIVERIES_MS',
    where: (config, now) =>
      sql.fragment`recorded_at < ${msBefore(now, config.RETENTION_WEBHOOK_DELIVERIES_MS).toISOString()}::timestamptz`,
  },
];
