// SQL for the delivery log and for queueing attempts by hand (retry, replay, ping).
import { z } from 'zod';
import { newId } from '../db/ids.ts';
import { selectPage } from '../db/paginate.ts';
import { type Db, sql } from '../db/pool.ts';

export const WEBHOOKS_CHANNEL = 'switchboard_webhooks';

export const DeliveryRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  endpoint_id: z.string(),
  message_id: z.string().nullable(),
  direction: z.enum(['INBOUND', 'OUTBOUND']),
  event: z.string().nullable(),
  attempt: z.number().int(),
  trigger: z.enum(['scheduled', 'manual']).nullable(),
  url: z.string().nullable(),
  response_status: z.number().int().nullable(),
  response_body: z.string().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
  success: z.boolean(),
  request_bytes: z.number().int().nullable(),
  created_at: z.string(),
});
export type DeliveryRow = z.infer<typeof DeliveryRow>;

const columns = sql.fragment`
  id, workspace_id, endpoint_id, message_id, direction, event, attempt, trigger, url, response_status,
  response_body, duration_ms, error, success, request_bytes, created_at
`;

export type DeliveryFilter = {
  endpointId?: string;
  success?: boolean;
  event?: string;
  since?: string;
};

function filterFragment(workspaceId: string, filter: DeliveryFilter) {
  const conditions = [sql.fragment`workspace_id = ${workspaceId}`];
  if (filter.endpointId !== undefined) conditions.push(sql.fragment`endpoint_id = ${filter.endpointId}`);
  if (filter.success !== undefined) conditions.push(sql.fragment`success = ${filter.success}`);
  if (filter.event !== undefined) conditions.push(sql.fragment`event = ${filter.event}`);
  if (filter.since !== undefined) conditions.push(sql.fragment`created_at >= ${filter.since}`);
  return sql.join(conditions, sql.fragment` and `);
}

/** A page of deliveries, newest first, and how many match in all. */
export async function listDeliveries(
  db: Db,
  workspaceId: string,
  filter: DeliveryFilter,
  page: { limit: number; offset: number },
) {
  return selectPage(
    db,
    DeliveryRow,
    {
      columns,
      from: sql.fragment`webhook_deliveries`,
      where: filterFragment(workspaceId, filter),
      orderBy: sql.fragment`created_at desc, id desc`,
    },
    page,
  );
}

/** The endpoint an inbound receipt arrived at. */
type Endpoint = { workspace_id: string; id: string };

export async function findDelivery(db: Db, workspaceId: string, deliveryId: string) {
  return db.maybeOne(sql.type(DeliveryRow)`
    select ${columns} from webhook_deliveries where workspace_id = ${workspaceId} and id = ${deliveryId}
  `);
}

/** The first successful receipt of this sender's message id, if any. */
export async function findInboundReceipt(db: Db, endpoint: Endpoint, idempotencyKey: string) {
  return db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    select id from webhook_deliveries
    where workspace_id = ${endpoint.workspace_id} and endpoint_id = ${endpoint.id} and idempotency_key = ${idempotencyKey} and success
  `);
}

export type InboundDeliveryRow = {
  id: string;
  workspaceId: string;
  endpointId: string;
  event: string | null;
  url: string;
  responseStatus: number;
  responseBody: string;
  durationMs: number;
  error: string | null;
  success: boolean;
  idempotencyKey: string | null;
  /** Set on a hex-signed receipt that created an event: what a replay of the same body matches. */
  bodyDigest?: string | null;
  /** Set on a receipt refused for its size: how big the body was. */
  requestBytes?: number | null;
};

export async function insertInboundDelivery(db: Db, row: InboundDeliveryRow): Promise<void> {
  // The endpoint is locked against deletion in the same statement: no foreign key checks it. A
  // receipt for an endpoint deleted meanwhile is not recorded (its sender got its answer).
  await db.query(sql.typeAlias('void')`
    with target as (
      select workspace_id, id from webhook_endpoints
      where workspace_id = ${row.workspaceId} and id = ${row.endpointId}
      for key share
    )
    insert into webhook_deliveries (workspace_id, id, endpoint_id, direction, event, attempt, url,
      response_status, response_body, duration_ms, error, success, idempotency_key, body_digest, request_bytes)
    select workspace_id, ${row.id}, id, 'INBOUND', ${row.event}, 1, ${row.url},
      ${row.responseStatus}::int, ${row.responseBody}, ${row.durationMs}::int, ${row.error}, ${row.success}::boolean,
      ${row.idempotencyKey}, ${row.bodyDigest ?? null}, ${row.requestBytes ?? null}::int
    from target
  `);
}

/**
 * The receipt of the same body at this endpoint within the window, if any. Serialised per body
 * (a transaction-scoped advisory lock), so two concurrent replays cannot both find none.
 */
export async function lockAndFindBodyReceipt(
  tx: Db,
  endpoint: Endpoint,
  bodyDigest: string,
  windowSeconds: number,
): Promise<string | null> {
  await tx.query(sql.unsafe`
    select pg_advisory_xact_lock(hashtextextended(${`inbound-body:${endpoint.id}:${bodyDigest}`}, 0))
  `);
  return tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    select id from webhook_deliveries
    where workspace_id = ${endpoint.workspace_id} and endpoint_id = ${endpoint.id} and body_digest = ${bodyDigest}
      and created_at > now() - ${windowSeconds} * interval '1 second'
    order by created_at limit 1
  `);
}

/**
 * Queues one manual attempt per message (numbered after the message's last) and wakes the
 * dispatchers. `leaseMs` > 0 keeps the attempts for the caller, which sends them itself.
 */
export async function queueManualAttempts(
  db: Db,
  workspaceId: string,
  messageIds: readonly string[],
  leaseMs = 0,
): Promise<{ id: string; message_id: string }[]> {
  if (messageIds.length === 0) return [];
  const input = messageIds.map((messageId) => ({ id: newId('delivery'), message_id: messageId }));
  const rows = await db.any(sql.type(z.object({ id: z.string(), message_id: z.string() }))`
    with input as (
      select * from jsonb_to_recordset(${sql.jsonb(input)}) as r(id text, message_id text)
    ), bumped as (
      update webhook_messages m set last_attempt = m.last_attempt + 1
      from input i where m.workspace_id = ${workspaceId} and m.id = i.message_id
      returning m.id, m.workspace_id, m.endpoint_id, m.last_attempt
    )
    insert into webhook_attempts (workspace_id, id, message_id, endpoint_id, attempt, trigger, due_at, claims)
    select b.workspace_id, i.id, b.id, b.endpoint_id, b.last_attempt, 'manual',
           now() + ${leaseMs} * interval '1 millisecond', 0
    from bumped b join input i on i.message_id = b.id
    returning id, message_id
  `);
  if (leaseMs === 0) await db.query(sql.unsafe`select pg_notify(${WEBHOOKS_CHANNEL}, '')`);
  return [...rows];
}

/**
 * Turns the queued (not in-flight) attempts of endpoints that stopped into "skipped" delivery
 * records. Attempts a worker holds finish and are recorded normally.
 */
export async function skipQueuedAttempts(db: Db, endpointIds: readonly string[]): Promise<number> {
  if (endpointIds.length === 0) return 0;
  const result = await db.query(sql.typeAlias('void')`
    with skipped as (
      delete from webhook_attempts a
      where a.endpoint_id = any(${sql.array(endpointIds as string[], 'text')})
        and not (a.claims > 0 and a.due_at > now())
      returning a.*
    ), recorded as (
      insert into webhook_deliveries (workspace_id, id, endpoint_id, message_id, direction, event, attempt,
        trigger, url, duration_ms, error, success)
      select s.workspace_id, s.id, s.endpoint_id, s.message_id, 'OUTBOUND', m.event, s.attempt, s.trigger,
             e.url, 0, 'skipped: endpoint disabled', false
      from skipped s
      join webhook_messages m on m.workspace_id = s.workspace_id and m.id = s.message_id
      join webhook_endpoints e on e.workspace_id = s.workspace_id and e.id = s.endpoint_id
    )
    update webhook_messages set status = 'skipped'
    where (workspace_id, id) in (select workspace_id, message_id from skipped) and status = 'pending'
  `);
  return result.rowCount;
}
