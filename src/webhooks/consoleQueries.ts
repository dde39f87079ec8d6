// SQL behind the console's webhook pages: each endpoint's health over its recent attempts, the
// delivery log in keyset pages (never OFFSET: the log grows by every attempt), and the request
// bodies of the attempts a page shows.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { type DeliveryFilter, DeliveryRow } from './deliveryQueries.ts';

/** How many of an endpoint's latest attempts its success rate is computed over. */
export const HEALTH_WINDOW = 100;

export const HealthRow = z.object({
  endpoint_id: z.string(),
  attempts: z.number().int(),
  succeeded: z.number().int(),
  last_failure_at: z.string().nullable(),
  last_failure_error: z.string().nullable(),
  last_failure_status: z.number().int().nullable(),
});
export type HealthRow = z.infer<typeof HealthRow>;

/**
 * Per endpoint of the workspace: the success rate over its last HEALTH_WINDOW attempts and its
 * latest failure. Both walk webhook_deliveries_endpoint_created_idx from the newest row down.
 */
export async function endpointHealth(db: Db, workspaceId: string, endpointIds: readonly string[]) {
  if (endpointIds.length === 0) return [];
  return db.any(sql.type(HealthRow)`
    select e.id as endpoint_id, coalesce(h.attempts, 0)::int as attempts, coalesce(h.succeeded, 0)::int as succeeded,
      f.created_at as last_failure_at, f.error as last_failure_error, f.response_status as last_failure_status
    from webhook_endpoints e
    left join lateral (
      select count(*) as attempts, count(*) filter (where r.success) as succeeded
      from (select d.success from webhook_deliveries d where d.endpoint_id = e.id
            order by d.created_at desc, d.id desc limit ${HEALTH_WINDOW}) r
    ) h on true
    left join lateral (
      select d.created_at, d.error, d.response_status from webhook_deliveries d
      where d.endpoint_id = e.id and not d.success order by d.created_at desc, d.id desc limit 1
    ) f on true
    where e.workspace_id = ${workspaceId} and e.id = any(${sql.array(endpointIds as string[], 'text')})
  `);
}

const columns = sql.fragment`
  id, workspace_id, endpoint_id, message_id, direction, event, attempt, trigger, url, response_status,
  response_body, duration_ms, error, success, request_bytes, created_at
`;

/**
 * A position in the log, newest first: the last row shown's (created_at as PostgreSQL's own text,
 * which keeps the microseconds the ISO form drops, and id).
 */
export type LogPosition = readonly [string, string];

const LogRow = DeliveryRow.extend({ position: z.string() });

export async function deliveryLogPage(
  db: Db,
  workspaceId: string,
  filter: DeliveryFilter & { endpointId: string },
  page: { after: LogPosition | null; limit: number },
) {
  const conditions = [
    sql.fragment`workspace_id = ${workspaceId}`,
    sql.fragment`endpoint_id = ${filter.endpointId}`,
  ];
  if (filter.success !== undefined) conditions.push(sql.fragment`success = ${filter.success}`);
  if (filter.event !== undefined) conditions.push(sql.fragment`event = ${filter.event}`);
  if (page.after)
    conditions.push(sql.fragment`(created_at, id) < (${page.after[0]}::timestamptz, ${page.after[1]})`);
  return db.any(sql.type(LogRow)`
    select ${columns}, created_at::text as position from webhook_deliveries where ${sql.join(conditions, sql.fragment` and `)}
    order by created_at desc, id desc limit ${page.limit}
  `);
}

/** The bodies of these outbound messages (the same bytes every attempt sent), by message id. */
export async function messageBodies(db: Db, workspaceId: string, messageIds: readonly string[]) {
  if (messageIds.length === 0) return new Map<string, string>();
  const rows = await db.any(sql.type(z.object({ id: z.string(), body: z.string() }))`
    select id, body from webhook_messages
    where workspace_id = ${workspaceId} and id = any(${sql.array(messageIds as string[], 'text')})
  `);
  return new Map(rows.map((row) => [row.id, row.body]));
}
