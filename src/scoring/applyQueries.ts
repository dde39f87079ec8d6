// The SQL of applying scoring rules: one statement per step, whatever the number of events.
import { z } from 'zod';
import { type Db, sql, VoidRow } from '../db/pool.ts';
import type { MetadataCondition } from '../segments/rules.ts';

export const ActiveRuleRow = z.object({
  id: z.string(),
  event_type: z.string(),
  points: z.number().int(),
  where: z.custom<MetadataCondition[]>().nullable(),
  repeatable: z.boolean(),
  cooldown_seconds: z.number().int().nullable(),
});
export type ActiveRuleRow = z.infer<typeof ActiveRuleRow>;

const HistoryRow = z.object({ rule_id: z.string(), contact_id: z.string(), last_at: z.string() });

/**
 * When each (rule, contact) last scored, on the clock of the event that scored (so backfilled
 * events keep cooldowns in event time); the change's own time when that event is gone.
 */
export async function findRuleHistory(db: Db, workspaceId: string, ruleIds: string[], contactIds: string[]) {
  if (ruleIds.length === 0) return [];
  return db.any(sql.prepared('scoring.rule_history', HistoryRow)`
    select sc.rule_id, sc.contact_id, max(coalesce(e.occurred_at, sc.created_at)) as last_at
    from score_changes sc left join events e on e.id = sc.event_id
    where sc.workspace_id = ${workspaceId} and sc.reason = 'rule'
      and sc.rule_id = any(${sql.array(ruleIds, 'text')}) and sc.contact_id = any(${sql.array(contactIds, 'text')})
    group by sc.rule_id, sc.contact_id
  `);
}

export type NewScoreChange = {
  id: string;
  contact_id: string;
  rule_id: string | null;
  event_id: string | null;
  reason: 'rule' | 'decay';
  previous_score: number;
  score: number;
};

/** The history rows and the contacts' final scores, in one statement. */
export async function writeScoreChanges(
  db: Db,
  workspaceId: string,
  changes: NewScoreChange[],
  scores: { id: string; score: number }[],
) {
  if (changes.length === 0) return;
  // The scores come as arrays, not jsonb_to_recordset: the planner knows how many rows an array
  // holds, while it guesses 100 for a JSON function and answered one contact's update with a hash
  // join over a sequential scan of every contact in the workspace.
  await db.query(sql.prepared('scoring.write_changes', VoidRow)`
    with history as (
      insert into score_changes (workspace_id, id, contact_id, rule_id, event_id, reason, previous_score, score)
      select ${workspaceId}, id, contact_id, rule_id, event_id, reason, previous_score, score
      from jsonb_to_recordset(${sql.jsonb(changes)})
        as r(id text, contact_id text, rule_id text, event_id text, reason text, previous_score int, score int)
    )
    update contacts c set lead_score = r.score
    from unnest(${sql.array(
      scores.map((row) => row.id),
      'text',
    )}::text[], ${sql.array(
      scores.map((row) => row.score),
      'int4',
    )}::int[]) as r(id, score)
    where c.workspace_id = ${workspaceId} and c.id = r.id
  `);
}
