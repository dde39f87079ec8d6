// Reading the audit log: newest first, a page at a time.
import type { Db } from '../db/pool.ts';
import { type AuditFilter, type AuditRow, listAuditEntries } from './queries.ts';

export function toAuditEntry(row: AuditRow) {
  return {
    id: row.id,
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
    origin: { ip: row.ip, userAgent: row.user_agent },
    before: row.before ?? null,
    after: row.after ?? null,
    createdAt: row.created_at,
  };
}

export type AuditEntry = ReturnType<typeof toAuditEntry>;

export async function listAudit(db: Db, workspaceId: string, filter: AuditFilter): Promise<AuditEntry[]> {
  return (await listAuditEntries(db, workspaceId, filter)).map(toAuditEntry);
}
