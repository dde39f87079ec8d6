// The side effects of ingest, in the spec's order, set-based over every contact of the request:
// 1. segments that can depend on these event types (every segment for new contacts);
// 2. campaigns whose trigger matches an event or a segment just entered;
// 3. scoring rules; 4. segments that read the lead score, for contacts whose score moved.
// Each step runs once for the whole request, so a batch costs the same round-trips as one event.
import { enrollForEvents } from '../campaigns/enroll.ts';
import { contactsChanged } from '../contacts/effects.ts';
import type { Tx } from '../db/pool.ts';
import { applyScoringRules, type ScoredEvent } from '../scoring/apply.ts';
import { reevaluateSegmentsForContacts, type SegmentChange } from '../segments/evaluate.ts';

export async function applySideEffects(
  tx: Tx,
  workspaceId: string,
  events: ScoredEvent[],
  createdIds: Set<string>,
): Promise<void> {
  if (events.length === 0) return;
  const created = [...createdIds];
  const existing = [...new Set(events.map((event) => event.contactId))].filter((id) => !createdIds.has(id));
  const eventTypes = [...new Set(events.map((event) => event.type))];
  const changes: SegmentChange[] = [
    ...(await segmentChanges(tx, workspaceId, created, { all: true })),
    ...(await segmentChanges(tx, workspaceId, existing, { eventTypes })),
  ];
  await enrollForEvents(tx, workspaceId, events, changes);
  const scoreChanges = await applyScoringRules(tx, workspaceId, events);
  const rescored = [...new Set(scoreChanges.map((change) => change.contactId))];
  await contactsChanged(tx, workspaceId, rescored, { score: true });
}

async function segmentChanges(
  tx: Tx,
  workspaceId: string,
  contactIds: string[],
  scope: { all?: boolean; eventTypes?: string[] },
): Promise<SegmentChange[]> {
  if (contactIds.length === 0) return [];
  return reevaluateSegmentsForContacts(tx, { workspaceId, contactIds, ...scope });
}
