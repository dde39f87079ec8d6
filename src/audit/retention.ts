// Audit entries are kept RETENTION_AUDIT_LOG_MS (a year unless the operator says otherwise).
import { sql } from '../db/pool.ts';
import { msBefore, type RetentionRule } from '../db/retention.ts';

export const auditRetention: RetentionRule[] = [
  {
    table: 'audit_entries',
    rule: 'audit log entries older than RETENTION_AUDIT_LOG_MS',
    where: (config, now) =>
      sql.fragment`created_at < ${msBefore(now, config.RETENTION_AUDIT_LOG_MS).toISOString()}::timestamptz`,
  },
];
