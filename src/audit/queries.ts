// SQL for the audit log: the insert the recorder makes in the caller's transaction, and the
// keyset-paged list (newest first, on the primary key: ids sort by time).
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { type Db, sql, type Tx, VoidRow } from '../db/pool.ts';

export const AuditRow = z.object({
  id: z.string(),
  created_at: z.string(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string(),
  actor_type: z.enum(['user', 'apiKey', 'cli', 'system']),
  actor_id: z.string().nullable(),
  actor_name: z.string().nullable(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
});
export type AuditRow = z.infer<typeof AuditRow>;

export type AuditInsert = {
  id: string;
  workspaceId: string;
  action: string;
  targetType: string;
  targetId: string;
  actorType: AuditRow['actor_type'];
  actorId: string | null;
  /** Used when the actor is neither a user nor a key (the CLI's operating-system user). */
  actorName: string | null;
  ip: string | null;
  userAgent: string | null;
  before: unknown;
  after: unknown;
};

const json = (value: unknown) => (value === undefined ? null : sql.jsonb(value as never));

/** The actor's name is read here, in the same statement: a user's email, a key's name. */
export async function insertAuditEntry(tx: Tx, entry: AuditInsert): Promise<void> {
  await tx.query(sql.type(VoidRow)`
    insert into audit_entries (workspace_id, id, action, target_type, target_id, actor_type, actor_id,
      actor_name, ip, user_agent, before, after)
    values (${entry.workspaceId}, ${entry.id}, ${entry.action}, ${entry.targetType}, ${entry.targetId},
      ${entry.actorType}, ${entry.actorId},
      case ${entry.actorType}::text
        when 'user' then (select email from users where id = ${entry.actorId})
        when 'apiKey' then (select name from api_keys where workspace_id = ${entry.workspaceId} and id = ${entry.actorId})
        else ${entry.actorName}::text
      end,
      ${entry.ip}, ${entry.userAgent}, ${json(entry.before)}, ${json(entry.after)})
  `);
}

export type AuditFilter = {
  /** `apiKey` matches `apiKey.created` and `apiKey.revoked`; `apiKey.created` only itself. */
  action?: string;
  actorType?: AuditRow['actor_type'];
  actorId?: string;
  targetType?: string;
  targetId?: string;
  since?: string;
  until?: string;
  beforeId?: string;
  limit: number;
};

function likePrefix(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function conditions(workspaceId: string, filter: AuditFilter): FragmentSqlToken[] {
  const where = [sql.fragment`workspace_id = ${workspaceId}`];
  if (filter.action !== undefined) {
    where.push(
      sql.fragment`(action = ${filter.action} or action like ${`${likePrefix(filter.action.replace(/\.$/, ''))}.%`})`,
    );
  }
  if (filter.actorType !== undefined) where.push(sql.fragment`actor_type = ${filter.actorType}`);
  if (filter.actorId !== undefined) where.push(sql.fragment`actor_id = ${filter.actorId}`);
  if (filter.targetType !== undefined) where.push(sql.fragment`target_type = ${filter.targetType}`);
  if (filter.targetId !== undefined) where.push(sql.fragment`target_id = ${filter.targetId}`);
  if (filter.since !== undefined) where.push(sql.fragment`created_at >= ${filter.since}::timestamptz`);
  if (filter.until !== undefined) where.push(sql.fragment`created_at < ${filter.until}::timestamptz`);
  if (filter.beforeId !== undefined) where.push(sql.fragment`id < ${filter.beforeId}`);
  return where;
}

export async function listAuditEntries(db: Db, workspaceId: string, filter: AuditFilter) {
  return db.any(sql.type(AuditRow)`
    select id, created_at, action, target_type, target_id, actor_type, actor_id, actor_name, ip,
      user_agent, before, after
    from audit_entries where ${sql.join(conditions(workspaceId, filter), sql.fragment` and `)}
    order by id desc limit ${filter.limit}
  `);
}

/** The audit feature sits below workspaces, so the CLI's "no such workspace" asks here. */
export async function workspaceExists(db: Db, workspaceId: string): Promise<boolean> {
  return db.exists(sql.unsafe`select 1 from workspaces where id = ${workspaceId}`);
}
