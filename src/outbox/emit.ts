// `emit` records a webhook-worthy change in the caller's transaction. The NOTIFY is delivered
// only when that transaction commits, which wakes the webhook worker within milliseconds.
import { newId } from '../db/ids.ts';
import { type Db, sql } from '../db/pool.ts';
import type { OutgoingEventType } from './eventTypes.ts';

export const OUTBOX_CHANNEL = 'switchboard_outbox';

export type OutgoingEvent = { workspaceId: string; type: OutgoingEventType; data: Record<string, unknown> };

export async function emit(db: Db, event: OutgoingEvent): Promise<string> {
  return (await emitMany(db, [event]))[0];
}

/** Records several events in one statement (batch ingest emits thousands). */
export async function emitMany(db: Db, events: readonly OutgoingEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({
    id: newId('outgoingEvent'),
    workspace_id: event.workspaceId,
    type: event.type,
    data: event.data,
  }));
  await db.query(sql.typeAlias('void')`
    insert into outgoing_events (id, workspace_id, type, data)
    select id, workspace_id, type, data
    from jsonb_to_recordset(${sql.jsonb(rows)}) as r(id text, workspace_id text, type text, data jsonb)
  `);
  await db.query(sql.unsafe`select pg_notify(${OUTBOX_CHANNEL}, '')`);
  return rows.map((row) => row.id);
}
