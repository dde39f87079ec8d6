// SQL for choosing outbound messages to send again (replay) and for one-off messages (pings).
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

export const ReplayRow = z.object({
  id: z.string(),
  endpoint_id: z.string(),
  event: z.string(),
  status: z.string(),
  active: z.boolean(),
  created_at: z.string(),
});
export type ReplayRow = z.infer<typeof ReplayRow>;

export type ReplayFilter = {
  workspaceId: string;
  endpointId?: string;
  since?: string;
  until?: string;
  failedOnly?: boolean;
};

/**
 * Outbound messages created in the window, oldest first. Failed-only means failed or skipped, and
 * also brings the messages still waiting for a scheduled retry after a failed attempt (status
 * pending), which `deliveries list --failed` shows: the plan leaves them out and counts them.
 */
export async function findMessagesForReplay(db: Db, filter: ReplayFilter) {
  const conditions = [sql.fragment`m.workspace_id = ${filter.workspaceId}`];
  if (filter.endpointId) conditions.push(sql.fragment`m.endpoint_id = ${filter.endpointId}`);
  if (filter.since) conditions.push(sql.fragment`m.created_at >= ${filter.since}`);
  if (filter.until) conditions.push(sql.fragment`m.created_at < ${filter.until}`);
  if (filter.failedOnly)
    conditions.push(sql.fragment`(m.status in ('failed', 'skipped') or (m.status = 'pending' and exists (
      select 1 from webhook_deliveries d
      where d.workspace_id = m.workspace_id and d.message_id = m.id and not d.success)))`);
  return db.any(sql.type(ReplayRow)`
    select m.id, m.endpoint_id, m.event, m.status, e.active, m.created_at
    from webhook_messages m join webhook_endpoints e on e.workspace_id = m.workspace_id and e.id = m.endpoint_id
    where ${sql.join(conditions, sql.fragment` and `)}
    order by m.created_at, m.id
  `);
}

export async function insertMessage(
  db: Db,
  message: { id: string; workspaceId: string; endpointId: string; event: string; body: string },
): Promise<void> {
  // The endpoint is locked against deletion in the same statement: no foreign key checks it.
  await db.query(sql.typeAlias('void')`
    with target as (
      select workspace_id, id from webhook_endpoints
      where workspace_id = ${message.workspaceId} and id = ${message.endpointId}
      for key share
    )
    insert into webhook_messages (workspace_id, id, endpoint_id, event, body)
    select workspace_id, ${message.id}, id, ${message.event}, ${message.body} from target
  `);
}
