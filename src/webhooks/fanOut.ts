// Fan-out: each outgoing event becomes one message per active OUTBOUND endpoint subscribed to its
// type, with its first attempt due now. The body is serialised here, once, and stored: every
// attempt sends these exact bytes, so signatures and receivers' dedupe see the same payload.
import type { DatabasePool } from 'slonik';
import { newId } from '../db/ids.ts';
import {
  claimOutgoingEvents,
  findActiveOutboundEndpoints,
  insertMessagesWithFirstAttempts,
  markFannedOut,
  type NewMessage,
  type OutgoingEventRow,
} from './dispatchQueries.ts';

export function messageBody(event: string, timestamp: string, data: unknown): string {
  return JSON.stringify({ event, timestamp, data });
}

type Target = { id: string; workspace_id: string; events: readonly string[] };

function subscribed(endpoint: Target, type: string): boolean {
  return endpoint.events.length === 0 || endpoint.events.includes(type);
}

function messagesFor(events: readonly OutgoingEventRow[], endpoints: readonly Target[]): NewMessage[] {
  const byWorkspace = Map.groupBy(endpoints, (endpoint) => endpoint.workspace_id);
  const messages: NewMessage[] = [];
  for (const event of events) {
    const targets = (byWorkspace.get(event.workspace_id) ?? []).filter((endpoint) => subscribed(endpoint, event.type));
    if (targets.length === 0) continue;
    const body = messageBody(event.type, event.occurred_at, event.data);
    for (const endpoint of targets) {
      messages.push({
        id: newId('webhookMessage'),
        attempt_id: newId('delivery'),
        workspace_id: event.workspace_id,
        endpoint_id: endpoint.id,
        outgoing_event_id: event.id,
        event: event.type,
        body,
      });
    }
  }
  return messages;
}

/** Fans out up to `limit` pending events in one transaction; returns how many it took. */
export async function fanOutBatch(db: DatabasePool, limit: number): Promise<number> {
  return db.transaction(async (tx) => {
    const events = await claimOutgoingEvents(tx, limit);
    if (events.length === 0) return 0;
    const workspaceIds = [...new Set(events.map((event) => event.workspace_id))];
    const endpoints = await findActiveOutboundEndpoints(tx, workspaceIds);
    await insertMessagesWithFirstAttempts(tx, messagesFor(events, endpoints));
    await markFannedOut(
      tx,
      events.map((event) => event.id),
    );
    return events.length;
  });
}
