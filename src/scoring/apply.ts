// Lead scoring at ingest. Rules are matched in memory against the events in hand (their `where`
// runs through the same matcher as campaign triggers) and decided against the rules' history, read
// beforehand with the ingest definitions; one statement then records every change and writes the
// final scores (at ingest, the same statement that re-evaluates the segments reading the score):
// a batch of 1,000 events costs the same round-trips as one.
import { newId } from '../db/ids.ts';
import type { Tx } from '../db/pool.ts';
import { emitMany } from '../outbox/emit.ts';
import { matchesMetadataConditions } from '../segments/index.ts';
import {
  type ActiveRuleRow,
  type NewScoreChange,
  type RuleHistoryRow,
  writeScoreChanges,
} from './applyQueries.ts';

export type ScoredEvent = {
  id: string;
  contactId: string;
  type: string;
  metadata: Record<string, unknown>;
  occurredAt: string;
};
export type ScoreChange = {
  contactId: string;
  ruleId: string;
  eventId: string;
  previousScore: number;
  score: number;
};

/** Scores stay well inside PostgreSQL's integer, however many events a contact sends. */
export const SCORE_LIMIT = 2_000_000_000;

export function clampScore(score: number): number {
  return Math.max(-SCORE_LIMIT, Math.min(SCORE_LIMIT, score));
}

type Candidate = { event: ScoredEvent; rule: ActiveRuleRow };

function matchRules(rules: readonly ActiveRuleRow[], events: readonly ScoredEvent[]): Candidate[] {
  const found: Candidate[] = [];
  for (const event of events) {
    for (const rule of rules) {
      if (rule.event_type === event.type && matchesMetadataConditions(rule.where, event.metadata)) {
        found.push({ event, rule });
      }
    }
  }
  return found;
}

/**
 * Walks the candidates in event order: a non-repeatable rule scores a contact once ever; a rule
 * with a cooldown scores again only once `cooldown` has passed, in event time, since the last
 * event it scored for that contact (an older, backfilled event within that span scores nothing).
 */
function decide(candidates: Candidate[], lastScored: Map<string, number>, scores: Map<string, number>) {
  const changes: ScoreChange[] = [];
  for (const { event, rule } of candidates) {
    const current = scores.get(event.contactId);
    if (current === undefined) continue; // the contact is gone
    const key = `${rule.id} ${event.contactId}`;
    const last = lastScored.get(key);
    const at = Date.parse(event.occurredAt);
    if (last !== undefined && !rule.repeatable) continue;
    if (last !== undefined && rule.cooldown_seconds && at < last + rule.cooldown_seconds * 1000) continue;
    const score = clampScore(current + rule.points);
    lastScored.set(key, Math.max(last ?? at, at));
    if (score === current) continue;
    scores.set(event.contactId, score);
    changes.push({
      contactId: event.contactId,
      ruleId: rule.id,
      eventId: event.id,
      previousScore: current,
      score,
    });
  }
  return changes;
}

/**
 * `rules`: the workspace's active rules, in creation order (each scores its own event type).
 * `scores`: the contacts' current lead scores, read under the row locks ingest took when it
 * resolved them (a second locking read of the same rows was one more round-trip per request).
 * `history`: when the limited rules (not repeatable, or with a cooldown) last scored these contacts.
 */
export function scoreEvents(
  rules: readonly ActiveRuleRow[],
  events: ScoredEvent[],
  { scores, history }: { scores: ReadonlyMap<string, number>; history: readonly RuleHistoryRow[] },
): ScoreChange[] {
  const candidates = matchRules(rules, events);
  if (candidates.length === 0) return [];
  const lastScored = new Map(
    history.map((row) => [`${row.rule_id} ${row.contact_id}`, Date.parse(row.last_at)]),
  );
  return decide(candidates, lastScored, new Map(scores));
}

export type RecordedChange = {
  contactId: string;
  ruleId: string | null;
  eventId: string | null;
  reason: 'rule' | 'decay';
  previousScore: number;
  score: number;
};

/** The history rows of these changes, and each contact's final score. */
export function scoreRows(changes: readonly RecordedChange[]) {
  const rows: NewScoreChange[] = changes.map((change) => ({
    id: newId('scoreChange'),
    contact_id: change.contactId,
    rule_id: change.ruleId,
    event_id: change.eventId,
    reason: change.reason,
    previous_score: change.previousScore,
    score: change.score,
  }));
  const final = new Map(changes.map((change) => [change.contactId, change.score]));
  return { rows, scores: [...final].map(([id, score]) => ({ id, score })) };
}

/** Writes history rows, the contacts' final scores and one contact.score_changed per change. */
export async function recordScoreChanges(
  tx: Tx,
  workspaceId: string,
  changes: RecordedChange[],
): Promise<void> {
  if (changes.length === 0) return;
  const { rows, scores } = scoreRows(changes);
  await writeScoreChanges(tx, workspaceId, rows, scores);
  await emitScoreChanges(tx, workspaceId, changes);
}

/** One contact.score_changed per change. */
export async function emitScoreChanges(tx: Tx, workspaceId: string, changes: readonly RecordedChange[]) {
  await emitMany(
    tx,
    changes.map((change) => ({
      workspaceId,
      type: 'contact.score_changed' as const,
      data: {
        contactId: change.contactId,
        previousScore: change.previousScore,
        score: change.score,
        ruleId: change.ruleId,
      },
    })),
  );
}
