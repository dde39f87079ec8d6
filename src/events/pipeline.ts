// The side effects of ingest, in the order events.create documents (/api/openapi), set-based over every contact of the request:
// 1. segments that can depend on the event types each contact brought (every one for new contacts);
// 2. campaigns whose trigger matches an event or a segment just entered;
// 3. scoring rules; 4. segments that read the lead score, for contacts whose score moved, and
//    campaigns triggered by the segments they entered there.
// Each step runs once for the whole request, so a batch costs the same round-trips as one event;
// the segments, campaigns and rules they use come whole from the workspace's cached definitions,
// and each step picks what concerns its events.
import {
  allowedEnrollments,
  convertGoals,
  emitEnrollments,
  enrollWithCampaigns,
  proposeEnrollments,
} from '../campaigns/index.ts';
import type { ContactRow } from '../contacts/index.ts';
import type { Tx } from '../db/pool.ts';
import { emitScoreChanges, type ScoredEvent, scoreEvents, scoreRows, scoreWrites } from '../scoring/index.ts';
import { reevaluateSegments, reevaluateSegmentsAndEnroll, scoreMoveMatters } from '../segments/index.ts';
import type { Definitions, SegmentDefinition } from './definitions.ts';

/**
 * For each segment, the contacts to re-evaluate it for: a new contact for every segment, another
 * only for the segments that read one of the event types it brought (a purchase cannot move a
 * segment of page views).
 */
function contactsPerSegment(
  segments: readonly SegmentDefinition[],
  events: readonly ScoredEvent[],
  createdIds: ReadonlySet<string>,
): Map<string, string[]> {
  const typesOf = new Map<string, Set<string>>();
  for (const event of events) {
    const types = typesOf.get(event.contactId) ?? new Set<string>();
    types.add(event.type);
    typesOf.set(event.contactId, types);
  }
  const contacts = [...typesOf];
  return new Map(
    segments.map((segment) => [
      segment.id,
      contacts.flatMap(([contactId, types]) =>
        createdIds.has(contactId) || segment.depends_on_event_types.some((type) => types.has(type))
          ? [contactId]
          : [],
      ),
    ]),
  );
}

/**
 * For each segment reading the score, the contacts whose score moved across one of its bounds.
 * The others' outcome is what it was with their old score: what the segment diff before scoring
 * found, or for a segment it did not evaluate, the membership they had (a move from 12 to 13
 * cannot cross `leadScore >= 50`).
 */
function contactsWhoseMoveMatters(
  segments: readonly SegmentDefinition[],
  before: ReadonlyMap<string, number>,
  after: readonly { id: string; score: number }[],
): Map<string, string[]> {
  return new Map(
    segments.map((segment) => [
      segment.id,
      after.flatMap((row) =>
        scoreMoveMatters(segment.rules, before.get(row.id)!, row.score) ? [row.id] : [],
      ),
    ]),
  );
}

export async function applySideEffects(
  tx: Tx,
  workspaceId: string,
  definitions: Definitions,
  events: ScoredEvent[],
  { createdIds, contacts }: { createdIds: Set<string>; contacts: ReadonlyMap<string, ContactRow> },
): Promise<void> {
  if (events.length === 0) return;
  const { segments, campaigns } = definitions;
  const contactIds = [...new Set(events.map((event) => event.contactId))];
  // Event-triggered enrollments go in the segment diff's statement: one round-trip for both.
  const proposed = proposeEnrollments(campaigns, events, []);
  const enroll = proposed.length ? allowedEnrollments(workspaceId, proposed) : undefined;
  const { changes, enrolled } = await reevaluateSegmentsAndEnroll(tx, workspaceId, segments, contactIds, {
    only: contactsPerSegment(segments, events, createdIds),
    enroll,
  });
  await emitEnrollments(tx, workspaceId, proposed, enrolled);
  // Then campaigns triggered by the segments just entered, then running campaigns' goals.
  await enrollWithCampaigns(tx, workspaceId, campaigns, changes);
  await convertGoals(tx, workspaceId, definitions.goals, events);
  // The contacts were read and locked when resolved; nothing since has changed their scores.
  const scores = new Map(events.map((event) => [event.contactId, contacts.get(event.contactId)!.lead_score]));
  const scoreChanges = scoreEvents(definitions.scoring_rules, events, {
    scores,
    history: definitions.rule_history,
  }).map((change) => ({ ...change, reason: 'rule' as const }));
  if (scoreChanges.length === 0) return;
  // Scores are written in the statement that re-evaluates the segments reading them.
  await emitScoreChanges(tx, workspaceId, scoreChanges);
  const { rows, scores: final } = scoreRows(scoreChanges);
  const rescored = final.map((row) => row.id);
  const write = scoreWrites(workspaceId, rows, final);
  const byScore = segments.filter((segment) => segment.depends_on_score);
  const only = contactsWhoseMoveMatters(byScore, scores, final);
  const entered = await reevaluateSegments(tx, workspaceId, byScore, rescored, { write, only });
  await enrollWithCampaigns(tx, workspaceId, campaigns, entered);
}
