// The audit log as the features above it use it: one call beside each configuration change.
export type { AuditAction } from './actions.ts';
export { countRecentActions, lockUserActions } from './recent.ts';
export { type AuditChange, recordAudit } from './record.ts';
