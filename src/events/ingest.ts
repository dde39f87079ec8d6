// The ingest pipeline shared by POST …/events, POST …/events/batch and inbound webhooks. It runs
// inside the caller's transaction, so when the caller commits, the events and every side effect
// (contacts, segments, enrollments, scores, outgoing events) are there together, or none is.

import type { ContactEffects } from '../contacts/index.ts';
import { AppError, BadRequestError, ConflictError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { Tx } from '../db/pool.ts';
import { collectEmits, emitMany, keepListenedEmits } from '../outbox/emit.ts';
import type { ScoredEvent } from '../scoring/index.ts';
import { contactTypes, readRuleHistory } from './definitions.ts';
import { claimIdempotencyKeys, requestDigest } from './idempotency.ts';
import type { IngestItem } from './ingestItem.ts';
import { applySideEffects } from './pipeline.ts';
import { type IngestedEvent, loadEvents, toNewEvent, toStoredEvent } from './present.ts';
import { insertEvents, moveEventsToContacts } from './queries.ts';
import { planContacts, resolveContacts } from './resolveContacts.ts';
import { CLOCK_SKEW_MS } from './schemas.ts';

export type { IngestItem } from './ingestItem.ts';
export type { IngestedEvent } from './present.ts';

export type IngestResult = { event: IngestedEvent; replayed: boolean };
export type IngestSource = 'api' | 'batch' | 'webhook' | 'system';

/** A key used again with another body: a conflict, named by the item's position in a batch. */
function reusedKey(source: IngestSource, position: number): AppError {
  const detail =
    'This idempotency key was already used for a request with a different body; use a new key ' +
    '(a retry must repeat the request exactly).';
  if (source !== 'batch') return new ConflictError(detail, 'idempotency-key-reused');
  const path = `body.events.${position}`;
  return new AppError(409, 'idempotency-key-reused', 'Conflict', `Item ${position}: ${detail}`, {
    extra: { errors: [{ path, message: 'reuses an idempotency key with a different body' }] },
  });
}

/**
 * Positions whose key was seen earlier (in this request or before) and the event they replay. A
 * key seen again with another body is a 409 (naming the batch item), never a silent replay.
 */
async function claimKeys(
  tx: Tx,
  workspaceId: string,
  items: IngestItem[],
  eventIds: string[],
  source: IngestSource,
) {
  const firstWithKey = new Map<string, { position: number; digest: string }>();
  const replays = new Map<number, string>();
  for (const [position, item] of items.entries()) {
    const key = item.idempotencyKey;
    if (key === undefined) continue;
    const digest = requestDigest(item);
    const first = firstWithKey.get(key);
    if (first === undefined) firstWithKey.set(key, { position, digest });
    else if (first.digest !== digest) throw reusedKey(source, position);
    else replays.set(position, eventIds[first.position]);
  }
  const claims = [...firstWithKey].map(([key, { position, digest }]) => ({
    key,
    eventId: eventIds[position],
    digest,
  }));
  const taken = await claimIdempotencyKeys(tx, workspaceId, claims);
  for (const [key, claim] of taken) {
    const first = firstWithKey.get(key)!;
    if (claim.digest !== null && claim.digest !== first.digest) throw reusedKey(source, first.position);
    for (const [position, replayed] of replays)
      if (replayed === eventIds[first.position]) replays.set(position, claim.eventId);
    replays.set(first.position, claim.eventId);
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

/** `effects`: what follows a change to contacts (the context's `effects.contacts`). */
export async function ingestEvents(
  tx: Tx,
  effects: ContactEffects,
  workspaceId: string,
  items: IngestItem[],
  options: { source: IngestSource },
): Promise<IngestResult[]> {
  // The pipeline emits at every stage; the outbox gets them all in one statement at the end.
  return collectEmits(tx, () => ingest(tx, effects, workspaceId, items, options.source));
}

async function ingest(
  tx: Tx,
  effects: ContactEffects,
  workspaceId: string,
  items: IngestItem[],
  source: IngestSource,
): Promise<IngestResult[]> {
  const times = items.map((item) => checkTimestamp(item.timestamp));
  const eventIds = items.map(() => newId('event'));
  const replays = await claimKeys(tx, workspaceId, items, eventIds, source);
  const freshPositions = items.map((_, position) => position).filter((position) => !replays.has(position));
  const fresh = freshPositions.map((position) => items[position]);
  // The events are stored before the contacts are locked, for the contacts a lock-free look
  // expects: a batch that shares contacts with a running one waits for them with its events already
  // written, so the lock is held for the side effects alone. The look is checked against what
  // the lock finds; an event whose contact changed meanwhile (merged, created by another request)
  // is moved to the right one before anything reads it.
  const plan = await planContacts(tx, workspaceId, fresh);
  const planned = fresh.map((item, i) =>
    toNewEvent(item, eventIds[freshPositions[i]], plan.contactIds[i], times[freshPositions[i]]),
  );
  if (planned.length === 0) return answer(tx, workspaceId, items, eventIds, replays, new Map());
  const stored = await insertEvents(tx, workspaceId, source, planned);
  keepListenedEmits(tx, stored.listenedTypes);
  const { contactIds, contacts, createdIds } = await resolveContacts(tx, effects, workspaceId, fresh, plan);
  const newEvents = planned.map((event, i) =>
    event.contact_id === contactIds[i] ? event : { ...event, contact_id: contactIds[i] },
  );
  await moveEventsToContacts(
    tx,
    workspaceId,
    newEvents.filter((event, i) => event !== planned[i]),
  );
  const { scoring_rules } = stored.definitions;
  const history = await readRuleHistory(tx, workspaceId, scoring_rules, contactTypes(newEvents));
  const definitions = { ...stored.definitions, rule_history: history };
  const occurredAt = new Map(stored.inserted.map((row) => [row.id, row.occurred_at]));
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
