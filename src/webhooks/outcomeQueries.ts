// SQL that records what attempts did, in bulk: one transaction per batch of outcomes, so the
// delivery record, the removal of the queued attempt and the next retry commit together.
// The statement every batch runs (recordDeliveries) is named: parsed and planned once a connection.
import { z } from 'zod';
import { jsonbRows, sql, type Tx } from '../db/pool.ts';

const textArray = (values: readonly string[]) => sql.array(values as string[], 'text');

export async function relaxCommit(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`set local synchronous_commit = off`);
}

export type OutboundDeliveryRow = {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  message_id: string;
  event: string;
  attempt: number;
  trigger: 'scheduled' | 'manual';
  url: string | null;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number;
  error: string | null;
  success: boolean;
  created_at: string;
};

/** The ids as one array, not a row each: every row returned costs slonik and zod a turn. */
const RecordedIds = z.object({ ids: z.array(z.string()) });

/**
 * The whole of a successful attempt's bookkeeping in one statement: remove the attempt, write its
 * delivery record, mark the message succeeded, end the endpoint's failure streak. Attempts whose
 * row is gone (a lease that ran out and was taken over) are not recorded; returns those that were.
 */
export async function recordDeliveries(tx: Tx, rows: readonly OutboundDeliveryRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const recorded = await tx.oneFirst(sql.prepared('webhooks.record_deliveries', RecordedIds)`
    with input as (
      select * from jsonb_to_recordset(${jsonbRows(rows)}) as r(workspace_id text, id text, endpoint_id text,
        message_id text, event text, attempt int, trigger text, url text, response_status int,
        response_body text, duration_ms int, error text, success boolean, created_at timestamptz)
    ), removed as (
      delete from webhook_attempts a using input i where a.workspace_id = i.workspace_id and a.id = i.id
      returning a.workspace_id, a.id
    ), recorded as (
      insert into webhook_deliveries (workspace_id, id, endpoint_id, message_id, direction, event, attempt,
        trigger, url, response_status, response_body, duration_ms, error, success, created_at)
      select workspace_id, id, endpoint_id, message_id, 'OUTBOUND', event, attempt, trigger, url, response_status,
             response_body, duration_ms, error, success, created_at
      from input join removed using (workspace_id, id)
      returning workspace_id, id, message_id, endpoint_id, success
    ), succeeded as (
      update webhook_messages m set status = 'succeeded'
      from recorded r where m.workspace_id = r.workspace_id and m.id = r.message_id and r.success and m.status <> 'succeeded'
    ), healthy as (
      update webhook_endpoints e set failing_since = null
      where (e.workspace_id, e.id) in (select workspace_id, endpoint_id from recorded where success)
        and e.failing_since is not null
    )
    select coalesce(array_agg(id), '{}') as ids from recorded
  `);
  return new Set(recorded);
}

/** A failure starts an endpoint's failure streak if none is running. */
export async function startFailureStreaks(tx: Tx, endpointIds: readonly string[]): Promise<void> {
  if (endpointIds.length === 0) return;
  await tx.query(sql.typeAlias('void')`
    update webhook_endpoints set failing_since = now()
    where id = any(${textArray(endpointIds)}) and failing_since is null
  `);
}

const DisabledRow = z.object({ workspace_id: z.string(), id: z.string(), disabled_reason: z.string() });

/** Disables endpoints that answered 410, or have only failed for `days`; returns them with why. */
export async function disableFailingEndpoints(
  tx: Tx,
  gone: readonly string[],
  failed: readonly string[],
  days: number,
) {
  if (gone.length === 0 && failed.length === 0) return [];
  return tx.any(sql.type(DisabledRow)`
    update webhook_endpoints set
      active = false,
      updated_at = now(),
      disabled_reason = case
        when id = any(${textArray(gone)}) then 'Disabled: the endpoint answered 410 Gone.'
        else 'Disabled: every delivery failed since ' ||
             to_char(failing_since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') ||
             ' (' || ${days} || ' days or more).'
      end
    where active and (
      id = any(${textArray(gone)}) or
      (id = any(${textArray(failed)}) and failing_since <= now() - ${days} * interval '1 day')
    )
    returning workspace_id, id, disabled_reason
  `);
}

/** Says on the attempt that tipped an endpoint over why it is now disabled. */
export async function annotateDeliveries(
  tx: Tx,
  notes: readonly { workspace_id: string; id: string; note: string }[],
) {
  if (notes.length === 0) return;
  await tx.query(sql.typeAlias('void')`
    update webhook_deliveries d set error = coalesce(d.error || '; ', '') || r.note
    from jsonb_to_recordset(${sql.jsonb(notes)}) as r(workspace_id text, id text, note text)
    where d.workspace_id = r.workspace_id and d.id = r.id
  `);
}

export type RetryRow = {
  workspace_id: string;
  id: string;
  message_id: string;
  schedule_index: number;
  delay_ms: number;
};

/** Queues the next scheduled attempt of each message whose endpoint is still active. */
export async function scheduleRetries(tx: Tx, retries: readonly RetryRow[]): Promise<void> {
  if (retries.length === 0) return;
  await tx.query(sql.typeAlias('void')`
    with input as (
      select * from jsonb_to_recordset(${sql.jsonb(retries)}) as r(
        workspace_id text, id text, message_id text, schedule_index int, delay_ms int)
    ), bumped as (
      update webhook_messages m set last_attempt = m.last_attempt + 1
      from input i, webhook_endpoints e
      where m.workspace_id = i.workspace_id and m.id = i.message_id
        and e.workspace_id = m.workspace_id and e.id = m.endpoint_id and e.active
      returning m.id, m.workspace_id, m.endpoint_id, m.last_attempt
    )
    insert into webhook_attempts (workspace_id, id, message_id, endpoint_id, attempt, trigger, schedule_index,
      due_at)
    select b.workspace_id, i.id, b.id, b.endpoint_id, b.last_attempt, 'scheduled', i.schedule_index,
           now() + i.delay_ms * interval '1 millisecond'
    from bumped b join input i on i.workspace_id = b.workspace_id and i.message_id = b.id
  `);
}

/**
 * After failed attempts: a message that ever succeeded stays succeeded; one with an attempt still
 * queued is pending; one whose endpoint was disabled before it could be sent is skipped; otherwise
 * it failed.
 */
export async function refreshFailedMessages(
  tx: Tx,
  messages: readonly { workspace_id: string; id: string; skipped: boolean }[],
): Promise<void> {
  if (messages.length === 0) return;
  await tx.query(sql.typeAlias('void')`
    update webhook_messages m set status = case
      when m.status = 'succeeded' then 'succeeded'
      when exists (select 1 from webhook_attempts a where a.workspace_id = m.workspace_id and a.message_id = m.id)
        then 'pending'
      when r.skipped then 'skipped'
      else 'failed'
    end
    from jsonb_to_recordset(${sql.jsonb(messages)}) as r(workspace_id text, id text, skipped boolean)
    where m.workspace_id = r.workspace_id and m.id = r.id
  `);
}
