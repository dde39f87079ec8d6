// Fan-out: each outgoing event becomes one message per active OUTBOUND endpoint subscribed to its
// type that listened when the event's transaction began, with its first attempt due now. The body is serialised here, once, and stored: every
// attempt sends these exact bytes, so signatures and receivers' dedupe see the same payload.
import type { DatabasePool } from 'slonik';
import { newId } from '../db/ids.ts';
import {
  type ClaimedAttempt,
  claimOutgoingEvents,
  findActiveOutboundEndpoints,
  insertMessagesWithFirstAttempts,
  markFannedOut,
  type NewMessage,
  type OutgoingEventRow,
  type TargetRow,
} from './dispatchQueries.ts';

export function messageBody(event: string, timestamp: string, data: unknown): string {
  return JSON.stringify({ event, timestamp, data });
}

/**
 * An endpoint receives the events of its types emitted since it began to listen (created or
 * re-enabled): one recorded earlier for another endpoint is not history it should expect.
 */
function receives(endpoint: TargetRow, event: OutgoingEventRow): boolean {
  if (event.occurred_us < endpoint.receives_since_us) return false;
  return endpoint.events.length === 0 || endpoint.events.includes(event.type);
}

type Planned = { message: NewMessage; endpoint: TargetRow };

function plan(events: readonly OutgoingEventRow[], endpoints: readonly TargetRow[], lease: Lease): Planned[] {
  const byWorkspace = Map.groupBy(endpoints, (endpoint) => endpoint.workspace_id);
  const planned: Planned[] = [];
  for (const event of events) {
    const targets = (byWorkspace.get(event.workspace_id) ?? []).filter((endpoint) =>
      receives(endpoint, event),
    );
    if (targets.length === 0) continue;
    const body = messageBody(event.type, event.occurred_at, event.data);
    for (const endpoint of targets) {
      const message = {
        id: newId('webhookMessage'),
        attempt_id: newId('delivery'),
        workspace_id: event.workspace_id,
        endpoint_id: endpoint.id,
        outgoing_event_id: event.id,
        event: event.type,
        body,
        lease_ms: planned.length < lease.count ? lease.ms : 0,
      };
      planned.push({ message, endpoint });
    }
  }
  return planned;
}

function asClaimed({ message, endpoint }: Planned): ClaimedAttempt {
  return {
    id: message.attempt_id,
    workspace_id: message.workspace_id,
    message_id: message.id,
    endpoint_id: message.endpoint_id,
    attempt: 1,
    trigger: 'scheduled',
    schedule_index: 0,
    event: message.event,
    body: message.body,
    url: endpoint.url,
    active: true,
    secrets: endpoint.secrets,
    secretError: endpoint.secretError,
    keyMissing: endpoint.keyMissing,
  };
}

/** How many first attempts the caller can send at once, and for how long it leases them. */
export type Lease = { count: number; ms: number };

/**
 * Fans out up to `limit` pending events in one transaction. The first `lease.count` first attempts
 * come back leased to the caller, which sends them without claiming them again; the rest are due
 * now for any worker. Returns how many events it took, the leased attempts and how many it queued.
 */
export async function fanOutBatch(db: DatabasePool, limit: number, lease: Lease) {
  return db.transaction(async (tx) => {
    const events = await claimOutgoingEvents(tx, limit);
    if (events.length === 0) return { events: 0, leased: [] as ClaimedAttempt[], queued: 0 };
    const workspaceIds = [...new Set(events.map((event) => event.workspace_id))];
    const planned = plan(events, await findActiveOutboundEndpoints(tx, workspaceIds), lease);
    const inserted = await insertMessagesWithFirstAttempts(
      tx,
      planned.map((entry) => entry.message),
    );
    await markFannedOut(tx, events);
    const leased = planned.filter((entry) => entry.message.lease_ms > 0 && inserted.has(entry.message.id));
    return { events: events.length, leased: leased.map(asClaimed), queued: inserted.size - leased.length };
  });
}
