// SQL of the outbound pipeline: fan-out of outgoing events into messages and first attempts, and
// claiming due attempts under a lease. Recording their outcomes is in outcomeQueries.ts.
// The statements of every fan-out are of fixed text and named (`sql.prepared`): each connection
// parses and plans them once, not on every batch.
import { z } from 'zod';
import { type Db, idArray, jsonbRows, sql, type Tx, VoidRow } from '../db/pool.ts';
import { liveStoredSecrets, openLiveSecrets, StoredSigningSecret } from './signingSecrets.ts';

const OutgoingEventRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
  occurred_at: z.string(),
  /** occurred_at in microseconds since the epoch: exact, unlike the ISO string's milliseconds. */
  occurred_us: z.number(),
});
export type OutgoingEventRow = z.infer<typeof OutgoingEventRow>;

/**
 * Oldest events not yet fanned out; rows other workers hold are skipped, not waited for. Read in
 * the pending index's order, stopping at `limit`: after a burst commits, the statistics still say
 * few events are pending, and the planner's bitmap scan then fetched and sorted every pending
 * event on every claim (10,000 events: a fifth of PostgreSQL's time in bench:webhooks). Local to
 * the fan-out's transaction, whose other statements look rows up by key.
 */
export async function claimOutgoingEvents(tx: Tx, limit: number) {
  await tx.query(sql.unsafe`set local enable_bitmapscan = off`);
  return tx.any(sql.prepared('webhooks.claim_outgoing_events', OutgoingEventRow)`
    select id, workspace_id, type, data, occurred_at, ${microseconds('occurred_at')} as occurred_us
    from outgoing_events
    where fanned_out_at is null
    order by occurred_at
    limit ${limit}
    for update skip locked
  `);
}

function microseconds(column: string) {
  return sql.fragment`(extract(epoch from ${sql.identifier(column.split('.'))}) * 1000000)::int8`;
}

const TargetRow = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    events: z.array(z.string()),
    url: z.string(),
    /** Events whose transaction began earlier are not this endpoint's (docs/guides/webhooks.md, "Who receives what"). */
    receives_since_us: z.number(),
    stored_secrets: z.array(StoredSigningSecret),
  })
  .transform(({ stored_secrets, ...row }) => ({
    ...row,
    ...openLiveSecrets(row.workspace_id, row.id, stored_secrets),
  }));
export type TargetRow = z.infer<typeof TargetRow>;

/**
 * The endpoints events may go to, locked against deletion (`for key share`, which updates of their
 * settings do not wait for) until the fan-out commits: once per endpoint and batch, what a foreign
 * key would check once per message inserted.
 */
export async function findActiveOutboundEndpoints(tx: Tx, workspaceIds: readonly string[]) {
  return tx.any(sql.type(TargetRow)`
    select e.id, e.workspace_id, e.events, e.url, ${microseconds('e.receives_since')} as receives_since_us,
      ${liveStoredSecrets} as stored_secrets
    from webhook_endpoints e
    where e.workspace_id = any(${sql.array(workspaceIds as string[], 'text')})
      and e.active and e.direction = 'OUTBOUND'
    for key share of e
  `);
}

export type NewMessage = {
  id: string;
  attempt_id: string;
  workspace_id: string;
  endpoint_id: string;
  outgoing_event_id: string;
  event: string;
  body: string;
  /** > 0: the first attempt is leased to the caller for this long, which sends it at once. */
  lease_ms: number;
};

const InsertedMessageIds = z.object({ message_ids: z.array(z.string()) });

/**
 * Each message with its first attempt (due now, or leased); returns the messages inserted. Their
 * ids come back as one array, not a row each: every row returned costs slonik and zod a turn.
 */
export async function insertMessagesWithFirstAttempts(tx: Tx, messages: readonly NewMessage[]) {
  if (messages.length === 0) return new Set<string>();
  const inserted = await tx.oneFirst(sql.prepared('webhooks.fan_out', InsertedMessageIds)`
    with input as (
      select * from jsonb_to_recordset(${jsonbRows(messages)}) as r(id text, attempt_id text, workspace_id text,
        endpoint_id text, outgoing_event_id text, event text, body text, lease_ms int)
    ), inserted as (
      insert into webhook_messages (workspace_id, id, endpoint_id, outgoing_event_id, event, body, last_attempt)
      select workspace_id, id, endpoint_id, outgoing_event_id, event, body, 1 from input
      on conflict (workspace_id, endpoint_id, outgoing_event_id) do nothing
      returning workspace_id, id
    ), attempts as (
      insert into webhook_attempts (workspace_id, id, message_id, endpoint_id, attempt, trigger, schedule_index,
        due_at, claims)
      select i.workspace_id, i.attempt_id, i.id, i.endpoint_id, 1, 'scheduled', 0,
             now() + i.lease_ms * interval '1 millisecond', case when i.lease_ms > 0 then 1 else 0 end
      from input i join inserted using (workspace_id, id)
      returning message_id
    )
    select coalesce(array_agg(message_id), '{}') as message_ids from attempts
  `);
  return new Set(inserted);
}

type Keyed = { workspace_id: string; id: string };

/** Rows known by (workspace_id, id): the primary key's own lookup. */
function byWorkspaceAndId(rows: readonly Keyed[]) {
  const workspaceIds = sql.array(
    rows.map((row) => row.workspace_id),
    'text',
  );
  return sql.fragment`(workspace_id, id) in (select * from unnest(${workspaceIds}, ${idArray(rows)}))`;
}

export async function markFannedOut(tx: Tx, events: readonly Keyed[]): Promise<void> {
  await tx.query(sql.prepared('webhooks.mark_fanned_out', VoidRow)`
    update outgoing_events set fanned_out_at = now()
    where ${byWorkspaceAndId(events)}
  `);
}

export const ClaimedAttempt = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    message_id: z.string(),
    endpoint_id: z.string(),
    attempt: z.number().int(),
    trigger: z.enum(['scheduled', 'manual']),
    schedule_index: z.number().int().nullable(),
    event: z.string(),
    body: z.string(),
    url: z.string().nullable(),
    active: z.boolean(),
    stored_secrets: z.array(StoredSigningSecret),
  })
  // Opened here, once per claim (and briefly cached), so a send only signs.
  .transform(({ stored_secrets, ...row }) => ({
    ...row,
    ...openLiveSecrets(row.workspace_id, row.endpoint_id, stored_secrets),
  }));
export type ClaimedAttempt = z.infer<typeof ClaimedAttempt>;

/**
 * Leases attempts: pushing `due_at` forward by the lease hides them from other workers until
 * it runs out, so a worker that dies mid-send leaves them to be claimed again.
 * `which`: the due ones (oldest first, up to `limit`, none of the `skipEndpoints`: those the caller
 * already has as many in flight as it allows one endpoint), or these ids (replay, ping).
 */
export async function claimAttempts(
  db: Db,
  which:
    | { limit: number; skipEndpoints?: readonly string[] }
    | { workspaceId: string; ids: readonly string[] },
  leaseMs: number,
): Promise<readonly ClaimedAttempt[]> {
  const chosen =
    'ids' in which
      ? sql.fragment`select workspace_id, id from webhook_attempts
                     where workspace_id = ${which.workspaceId} and id = any(${sql.array(which.ids as string[], 'text')})
                     for update skip locked`
      : sql.fragment`select workspace_id, id from webhook_attempts where due_at <= now() ${notTo(which.skipEndpoints)}
                     order by due_at limit ${which.limit} for update skip locked`;
  // An attempt whose message is gone (deleted by retention as a replay was queued on it: no foreign
  // key ties them, sql/0064) has nothing to send: it is dropped, not leased again and again.
  const hasMessage = sql.fragment`exists (select 1 from webhook_messages m
                                          where m.workspace_id = a.workspace_id and m.id = a.message_id)`;
  return db.any(sql.type(ClaimedAttempt)`
    with chosen as (${chosen}), orphaned as (
      delete from webhook_attempts a
      using chosen where a.workspace_id = chosen.workspace_id and a.id = chosen.id and not ${hasMessage}
    ), claimed as (
      update webhook_attempts a
      set due_at = now() + ${leaseMs} * interval '1 millisecond', claims = a.claims + 1
      from chosen where a.workspace_id = chosen.workspace_id and a.id = chosen.id and ${hasMessage}
      returning a.*
    )
    select c.id, c.workspace_id, c.message_id, c.endpoint_id, c.attempt, c.trigger, c.schedule_index,
      m.event, m.body, e.url, e.active, ${liveStoredSecrets} as stored_secrets
    from claimed c
    join webhook_messages m on m.workspace_id = c.workspace_id and m.id = c.message_id
    join webhook_endpoints e on e.workspace_id = c.workspace_id and e.id = c.endpoint_id
  `);
}

/** Hands leased attempts back (a stopping worker), so another worker need not wait for the lease. */
export async function releaseAttempts(db: Db, attempts: readonly Keyed[]): Promise<void> {
  if (attempts.length === 0) return;
  await db.query(sql.typeAlias('void')`
    update webhook_attempts set due_at = now()
    where ${byWorkspaceAndId(attempts)}
  `);
}

/**
 * When the next attempt falls due (or a lease runs out), so an idle dispatcher sleeps until then;
 * the attempts of `skipEndpoints` wait for a free slot of theirs, which wakes it anyway.
 */
export async function nextDueAt(db: Db, skipEndpoints: readonly string[] = []): Promise<string | null> {
  return db.oneFirst(sql.type(z.object({ due: z.string().nullable() }))`
    select min(due_at) as due from webhook_attempts where true ${notTo(skipEndpoints)}
  `);
}

function notTo(endpointIds: readonly string[] = []) {
  return endpointIds.length === 0
    ? sql.fragment``
    : sql.fragment`and endpoint_id <> all(${sql.array(endpointIds as string[], 'text')})`;
}
