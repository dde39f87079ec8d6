// Telegram: expired deep-link tokens (used ones are deleted when used), and the updates the bot
// received once processed and older than RETENTION_WEBHOOK_DELIVERIES_MS (Telegram stops
// redelivering an update within a day, so its key no longer guards anything).
import { sql } from '../db/pool.ts';
import { msBefore, type RetentionRule } from '../db/retention.ts';

export const telegramRetention: RetentionRule[] = [
  {
    table: 'telegram_link_tokens',
    rule: 'deep-link tokens past their expiry',
    where: () => sql.fragment`expires_at < now()`,
  },
  {
    table: 'telegram_updates',
    rule: 'processed bot updates older than RETENTION_WEBHOOK_DELIVERIES_MS',
    where: (config, now) =>
      sql.fragment`processed_at is not null
        and received_at < ${msBefore(now, config.RETENTION_WEBHOOK_DELIVERIES_MS).toISOString()}::timestamptz`,
  },
];
