// The side effects of ingest, in the spec's order, set-based over every contact of the request:
// 1. segments that can depend on these event types (every segment for new contacts);
// 2. campaigns whose trigger matches an event or a segment just entered;
// 3. scoring rules; 4. segments that read the lead score, for contacts whose score moved, and
//    campaigns triggered by the segments they entered there.
// Each step runs once for the whole request, so a batch costs the same round-trips as one event;
// the segments, campaigns and rules they use are read once, with the insert of the events.
import { enrollWithCampaigns } from '../campaigns/enroll.ts';
import type { ContactRow } from '../contacts/queries.ts';
import type { Tx } from '../db/pool.ts';
import {
  emitScoreChanges,
  recordScoreChanges,
  type ScoredEvent,
  scoreEvents,
  scoreRows,
} from '../scoring/apply.ts';
import { scoreWrites } from '../scoring/applyQueries.ts';
import { reevaluateSegments, type SegmentChange } from '../segments/evaluate.ts';
import type { Definitions } from './definitions.ts';

export async function applySideEffects(
  tx: Tx,
  workspaceId: string,
  definitions: Definitions,
  events: ScoredEvent[],
  { createdIds, contacts }: { createdIds: Set<string>; contacts: ReadonlyMap<string, ContactRow> },
): Promise<void> {
  if (events.length === 0) return;
  const eventTypes = [...new Set(events.map((event) => event.type))];
  const { segments, campaigns } = definitions;
  const byEventType = segments.filter((segment) =>
    segment.depends_on_event_types.some((type) => eventTypes.includes(type)),
  );
  const existing = [...new Set(events.map((event) => event.contactId))].filter((id) => !createdIds.has(id));
  const changes: SegmentChange[] = [
    ...(await reevaluateSegments(tx, workspaceId, segments, [...createdIds])),
    ...(await reevaluateSegments(tx, workspaceId, byEventType, existing)),
  ];
  await enrollWithCampaigns(tx, workspaceId, campaigns, events, changes);
  // The contacts were read and locked when resolved; nothing since has changed their scores.
  const scores = new Map(events.map((event) => [event.contactId, contacts.get(event.contactId)!.lead_score]));
  const scoreChanges = scoreEvents(definitions.scoring_rules, events, {
    scores,
    history: definitions.rule_history,
  }).map((change) => ({ ...change, reason: 'rule' as const }));
  const byScore = segments.filter((segment) => segment.depends_on_score);
  if (scoreChanges.length === 0) return;
  if (byScore.length === 0) return recordScoreChanges(tx, workspaceId, scoreChanges);
  // Scores are written in the statement that re-evaluates the segments reading them.
  await emitScoreChanges(tx, workspaceId, scoreChanges);
  const { rows, scores: final } = scoreRows(scoreChanges);
  const rescored = final.map((row) => row.id);
  const write = scoreWrites(workspaceId, rows, final);
  const entered = await reevaluateSegments(tx, workspaceId, byScore, rescored, write);
  await enrollWithCampaigns(tx, workspaceId, campaigns, [], entered);
}
