// `emit` records a webhook-worthy change in the caller's transaction, so nothing committed can
// miss its webhook and nothing rolled back can send one.
//
// The worker is woken by a NOTIFY sent right AFTER the commit, not inside the transaction:
// PostgreSQL serialises the commits of notifying transactions on a global lock held through the
// WAL flush, which capped ingest at one commit per flush (≈ 90/s). After-commit notifies are
// coalesced (one in flight per pool, plus one more if asked meanwhile); the dispatcher's fallback
// poll covers a process that dies between its commit and its NOTIFY.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabasePool } from 'slonik';
import { afterCommit } from '../db/afterCommit.ts';
import { newId } from '../db/ids.ts';
import { type Db, jsonbRows, sql, VoidRow } from '../db/pool.ts';
import type { EventData, OutgoingEventType } from './eventTypes.ts';

export const OUTBOX_CHANNEL = 'switchboard_outbox';

/** An event of one of the types T, its `data` checked against that type's documented schema. */
export type OutgoingEvent<T extends OutgoingEventType = OutgoingEventType> = {
  [Type in T]: { workspaceId: string; type: Type; data: EventData<Type> };
}[T];

export async function emit<T extends OutgoingEventType>(db: Db, event: OutgoingEvent<T>): Promise<void> {
  await emitMany(db, [event]);
}

type OutboxRow = { id: string; workspace_id: string; type: string; data: Record<string, unknown> };

/** Emits on `tx` made inside `collectEmits(tx, …)`: held back and written in one statement. */
const collecting = new AsyncLocalStorage<Collector>();

/** `listened`: the types some endpoint listened to when the transaction looked ('*': every type). */
type Collector = { tx: Db; rows: OutboxRow[]; listened?: ReadonlySet<string> };

function listens(listened: ReadonlySet<string>, type: string): boolean {
  return listened.has('*') || listened.has(type);
}

/**
 * The types the workspace's active OUTBOUND endpoints subscribe to ('*' for an endpoint without a
 * list), as a column of a statement the caller runs anyway: no round trip of its own. The same
 * rule as the outbox insert's own check (`insertOutboxRows`).
 */
export function listenedTypesColumn(workspaceId: string) {
  return sql.fragment`(
    select coalesce(array_agg(distinct t), '{}') from webhook_endpoints e
    cross join lateral unnest(case when e.events = '{}' then array['*'] else e.events end) as t
    where e.workspace_id = ${workspaceId} and e.active and e.direction = 'OUTBOUND')`;
}

/**
 * Inside `collectEmits(tx, …)`: from now on, keeps only emits of the types `listened` names (read
 * by a statement of `tx`, see listenedTypesColumn), and drops those collected before that it
 * does not name. A batch of a workspace nobody listens to then builds and sends no outbox rows at
 * all: 1,000 events emitted ~2,700 rows that the insert dropped, 10 ms of the batch's transaction
 * while it held its contacts. The transaction began before that statement, so every endpoint
 * whose creation committed before the transaction began is among `listened` (docs/guides/webhooks.md,
 * "Who receives what").
 */
export function keepListenedEmits(tx: Db, listened: readonly string[]): void {
  const collector = collecting.getStore();
  if (collector?.tx !== tx) return;
  const types = new Set(listened);
  collector.listened = types;
  collector.rows = collector.rows.filter((row) => listens(types, row.type));
}

/**
 * Records several events in one statement (batch ingest emits thousands); only those some endpoint
 * listens to are kept. The ids returned are those the kept rows carry.
 */
export async function emitMany<T extends OutgoingEventType>(
  db: Db,
  events: readonly OutgoingEvent<T>[],
): Promise<string[]> {
  const store = collecting.getStore();
  const collector = store?.tx === db ? store : undefined;
  const listened = collector?.listened;
  const kept = listened ? events.filter((event) => listens(listened, event.type)) : events;
  if (kept.length === 0) return [];
  const rows = kept.map((event) => ({
    id: newId('outgoingEvent'),
    workspace_id: event.workspaceId,
    type: event.type,
    data: event.data,
  }));
  if (collector) collector.rows.push(...rows);
  else await insertOutboxRows(db, rows);
  afterCommit(notifyOutbox, 'end' in db ? db : null); // a pool has `end`; a transaction has not
  return rows.map((row) => row.id);
}

/**
 * Runs `work`, then writes every event it emitted on `tx` in one statement, still inside the
 * transaction. Ingest emits at five stages; each was a round-trip of its own. Ids are taken at
 * emit time (monotonic), so the outbox order is the order of the emits.
 */
export async function collectEmits<T>(tx: Db, work: () => Promise<T>): Promise<T> {
  const collector: Collector = { tx, rows: [] };
  const result = await collecting.run(collector, work);
  await insertOutboxRows(tx, collector.rows);
  return result;
}

/**
 * Writes the rows some active OUTBOUND endpoint of their workspace subscribes to (an empty list
 * takes every type) and drops the rest: nobody would receive them. The check is in the insert
 * itself (on webhook_endpoints_fanout_idx), so it costs no round trip and needs no cache that the
 * web and worker processes could hold stale. The statement's snapshot sees every endpoint
 * committed before it started, so a transaction that begins after an endpoint's creation
 * committed records its events for it (docs/guides/webhooks.md, "Who receives what").
 */
async function insertOutboxRows(db: Db, rows: readonly OutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(sql.prepared('outbox.insert', VoidRow)`
    insert into outgoing_events (id, workspace_id, type, data)
    select r.id, r.workspace_id, r.type, r.data
    from jsonb_to_recordset(${jsonbRows(rows)}) as r(id text, workspace_id text, type text, data jsonb)
    where exists (
      select 1 from webhook_endpoints e
      where e.workspace_id = r.workspace_id and e.active and e.direction = 'OUTBOUND'
        and (e.events = '{}' or r.type = any(e.events))
    )
  `);
}

const notifying = new WeakMap<DatabasePool, { again: boolean }>();

/**
 * Wakes the webhook worker now, for rows written past `emit` (an import's set-wise statements).
 * Never fails: the dispatcher's fallback poll finds the rows anyway.
 */
export async function wakeOutbox(db: Db): Promise<void> {
  await db.query(sql.unsafe`select pg_notify(${OUTBOX_CHANNEL}, '')`).catch(() => {});
}

/** Wakes the webhook worker. Coalesced: at most one NOTIFY in flight per pool. */
export function notifyOutbox(pool: DatabasePool): void {
  const state = notifying.get(pool);
  if (state) {
    state.again = true;
    return;
  }
  const mine = { again: false };
  notifying.set(pool, mine);
  wakeOutbox(pool).finally(() => {
    notifying.delete(pool);
    if (mine.again) notifyOutbox(pool);
  });
}
