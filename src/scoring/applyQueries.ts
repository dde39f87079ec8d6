// The SQL of applying scoring rules: one statement per step, whatever the number of events.

import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { type Db, jsonbRows, sql } from '../db/pool.ts';
import type { MetadataCondition } from '../segments/index.ts';

export const ActiveRuleRow = z.object({
  id: z.string(),
  event_type: z.string(),
  points: z.number().int(),
  where: z.custom<MetadataCondition[]>().nullable(),
  repeatable: z.boolean(),
  cooldown_seconds: z.number().int().nullable(),
});
export type ActiveRuleRow = z.infer<typeof ActiveRuleRow>;

// Read by ingest once its contacts are locked (readRuleHistory in src/events/definitions.ts) and by imports.
export const RuleHistoryRow = z.object({ rule_id: z.string(), contact_id: z.string(), last_at: z.string() });
export type RuleHistoryRow = z.infer<typeof RuleHistoryRow>;

export type NewScoreChange = {
  id: string;
  contact_id: string;
  rule_id: string | null;
  event_id: string | null;
  reason: 'rule' | 'decay';
  previous_score: number;
  score: number;
};

/**
 * The common table expressions that write the history rows (`history`) and the contacts' final
 * scores (`scored`, the updated contact rows): on their own (writeScoreChanges) or ahead of the
 * segment diff that reads the new scores from `scored` (src/events/pipeline.ts).
 */
export function scoreWrites(
  workspaceId: string,
  changes: NewScoreChange[],
  scores: { id: string; score: number }[],
): FragmentSqlToken {
  // The scores come as arrays, not jsonb_to_recordset: the planner knows how many rows an array
  // holds, while it guesses 100 for a JSON function and answered one contact's update with a hash
  // join over a sequential scan of every contact in the workspace.
  return sql.fragment`
    history as (
      insert into score_changes (workspace_id, id, contact_id, rule_id, event_id, reason, previous_score, score)
      select ${workspaceId}, id, contact_id, rule_id, event_id, reason, previous_score, score
      from jsonb_to_recordset(${jsonbRows(changes)})
        as r(id text, contact_id text, rule_id text, event_id text, reason text, previous_score int, score int)
    ),
    scored as (
      update contacts c set lead_score = r.score
      from unnest(${sql.array(
        scores.map((row) => row.id),
        'text',
      )}::text[], ${sql.array(
        scores.map((row) => row.score),
        'int4',
      )}::int[]) as r(id, score)
      where c.workspace_id = ${workspaceId} and c.id = r.id
      returning c.*
    )`;
}

/** The history rows and the contacts' final scores, in one statement. */
export async function writeScoreChanges(
  db: Db,
  workspaceId: string,
  changes: NewScoreChange[],
  scores: { id: string; score: number }[],
) {
  if (changes.length === 0) return;
  await db.query(sql.prepared('scoring.write_changes', z.object({ updated: z.number() }))`
    with ${scoreWrites(workspaceId, changes, scores)}
    select count(*)::int as updated from scored
  `);
}
