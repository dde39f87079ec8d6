// The ingest pipeline shared by POST …/events, POST …/events/batch and inbound webhooks. It runs
// inside the caller's transaction, so when the caller commits, the events and every side effect
// (contacts, segments, enrollments, scores, outgoing events) are there together, or none is.
import { newId } from '../db/ids.ts';
import type { Tx } from '../db/pool.ts';
import { BadRequestError, ConflictError } from '../http/errors.ts';
import { collectEmits, emitMany } from '../outbox/emit.ts';
import type { ScoredEvent } from '../scoring/index.ts';
import { claimIdempotencyKeys } from './idempotency.ts';
import type { IngestItem } from './ingestItem.ts';
import { applySideEffects } from './pipeline.ts';
import { type IngestedEvent, loadEvents, toNewEvent, toStoredEvent } from './present.ts';
import { insertEvents } from './queries.ts';
import { resolveContacts } from './resolveContacts.ts';
import { CLOCK_SKEW_MS } from './schemas.ts';

export type { IngestItem } from './ingestItem.ts';
export type { IngestedEvent } from './present.ts';

export type IngestResult = { event: IngestedEvent; replayed: boolean };
export type IngestSource = 'api' | 'batch' | 'webhook' | 'system';

/** Positions whose key was seen earlier (in this request or before) and the event they replay. */
async function claimKeys(tx: Tx, workspaceId: string, items: IngestItem[], eventIds: string[]) {
  const firstWithKey = new Map<string, number>();
  const replays = new Map<number, string>();
  for (const [position, item] of items.entries()) {
    const key = item.idempotencyKey;
    if (key === undefined) continue;
    const first = firstWithKey.get(key);
    if (first === undefined) firstWithKey.set(key, position);
    else replays.set(position, eventIds[first]);
  }
  const claims = [...firstWithKey].map(([key, position]) => ({ key, eventId: eventIds[position] }));
  const taken = await claimIdempotencyKeys(tx, workspaceId, claims);
  for (const [key, eventId] of taken) {
    const first = firstWithKey.get(key)!;
    for (const [position, replayed] of replays)
      if (replayed === eventIds[first]) replays.set(position, eventId);
    replays.set(first, eventId);
  }
  return replays;
}

function checkTimestamp(timestamp: string | undefined): string | null {
  if (timestamp === undefined) return null;
  const time = Date.parse(timestamp);
  if (Number.isNaN(time)) throw new BadRequestError('timestamp must be an ISO 8601 timestamp.');
  if (time > Date.now() + CLOCK_SKEW_MS) throw new BadRequestError('timestamp must not be in the future.');
  return new Date(time).toISOString();
}

export async function ingestEvents(
  tx: Tx,
  workspaceId: string,
  items: IngestItem[],
  options: { source: IngestSource },
): Promise<IngestResult[]> {
  // The pipeline emits at every stage; the outbox gets them all in one statement at the end.
  return collectEmits(tx, () => ingest(tx, workspaceId, items, options.source));
}

async function ingest(
  tx: Tx,
  workspaceId: string,
  items: IngestItem[],
  source: IngestSource,
): Promise<IngestResult[]> {
  const times = items.map((item) => checkTimestamp(item.timestamp));
  const eventIds = items.map(() => newId('event'));
  const replays = await claimKeys(tx, workspaceId, items, eventIds);
  const freshPositions = items.map((_, position) => position).filter((position) => !replays.has(position));
  const fresh = freshPositions.map((position) => items[position]);
  const { contactIds, contacts, createdIds } = await resolveContacts(tx, workspaceId, fresh);
  const newEvents = fresh.map((item, i) =>
    toNewEvent(item, eventIds[freshPositions[i]], contactIds[i], times[freshPositions[i]]),
  );
  if (newEvents.length === 0) return answer(tx, workspaceId, items, eventIds, replays, new Map());
  const withContact = [
    ...new Set(newEvents.flatMap((event) => (event.contact_id ? [event.contact_id] : []))),
  ];
  const { inserted, definitions } = await insertEvents(tx, workspaceId, source, newEvents, withContact);
  const occurredAt = new Map(inserted.map((row) => [row.id, row.occurred_at]));
  await emitMany(
    tx,
    newEvents.map((event) => ({
      workspaceId,
      type: 'event.tracked' as const,
      data: { contactId: event.contact_id, eventType: event.type, metadata: event.metadata },
    })),
  );
  const scored: ScoredEvent[] = newEvents.flatMap((event) =>
    event.contact_id
      ? [
          {
            id: event.id,
            contactId: event.contact_id,
            type: event.type,
            metadata: event.metadata,
            occurredAt: occurredAt.get(event.id)!,
          },
        ]
      : [],
  );
  await applySideEffects(tx, workspaceId, definitions, scored, { createdIds, contacts });
  const results = new Map<string, IngestedEvent>(
    newEvents.map((event) => [event.id, toStoredEvent(event, occurredAt.get(event.id)!, contacts)]),
  );
  return answer(tx, workspaceId, items, eventIds, replays, results);
}

/** Fresh events as built; replays as stored (they may predate this request). */
async function answer(
  tx: Tx,
  workspaceId: string,
  items: IngestItem[],
  eventIds: string[],
  replays: Map<number, string>,
  fresh: Map<string, IngestedEvent>,
): Promise<IngestResult[]> {
  const earlier = [...new Set(replays.values())].filter((id) => !fresh.has(id));
  const loaded = earlier.length
    ? await loadEvents(tx, workspaceId, earlier)
    : new Map<string, IngestedEvent>();
  return items.map((item, position) => {
    const replayed = replays.get(position);
    const event = replayed ? (fresh.get(replayed) ?? loaded.get(replayed)) : fresh.get(eventIds[position]);
    if (!event) throw new ConflictError('The event this idempotency key was used for no longer exists.');
    if (event.type !== item.type.trim()) {
      throw new ConflictError(
        `This idempotency key was already used for an event of type "${event.type}"; use a new key.`,
        'idempotency-key-reused',
      );
    }
    return { event, replayed: replayed !== undefined };
  });
}
