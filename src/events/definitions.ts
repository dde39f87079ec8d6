// What the ingest pipeline reads of the workspace's configuration, in the statement that inserts
// the events (each stage used to read its own, a round-trip apiece): the segments it may
// re-evaluate, the active campaigns with a trigger and the active scoring rules for the request's
// event types.
import { z } from 'zod';
import { TriggeredCampaignRow } from '../campaigns/enrollQueries.ts';
import { sql } from '../db/pool.ts';
import { ActiveRuleRow, RuleHistoryRow } from '../scoring/applyQueries.ts';
import type { Rule } from '../segments/rules.ts';

const SegmentDefinition = z.object({
  id: z.string(),
  rules: z.custom<Rule>(),
  depends_on_event_types: z.array(z.string()),
  depends_on_score: z.boolean(),
});
export type SegmentDefinition = z.infer<typeof SegmentDefinition>;

export const Definitions = z.object({
  segments: z.array(SegmentDefinition),
  campaigns: z.array(TriggeredCampaignRow),
  scoring_rules: z.array(ActiveRuleRow),
  rule_history: z.array(RuleHistoryRow),
});
export type Definitions = z.infer<typeof Definitions>;

export type DefinitionsWanted = { eventTypes: string[]; allSegments: boolean; contactIds: string[] };

/**
 * Segments: every one when `allSegments` (new contacts), else those reading these event types or
 * the lead score; ordered by id. Campaigns: active, triggered by these event types or by any
 * segment entry; by id. Scoring rules: active, for these event types; by creation. Rule history:
 * when each of those rules that is not repeatable or has a cooldown last scored each of these
 * contacts (the contacts are locked by now, so it cannot move before scoring). As columns
 * `segments`, `campaigns`, `scoring_rules` and `rule_history`, to select beside the statement that
 * inserts the events (see insertEvents): one round-trip for all.
 */
/** When each (rule, contact) last scored, on the clock of the event that scored (so backfilled
 * events keep cooldowns in event time); the change's own time when that event is gone. */
function ruleHistory(workspaceId: string, types: ReturnType<typeof sql.array>, contactIds: string[]) {
  return sql.fragment`
    select sc.rule_id, sc.contact_id, max(coalesce(e.occurred_at, sc.created_at)) as last_at
    from score_changes sc left join events e on e.id = sc.event_id
    where sc.workspace_id = ${workspaceId} and sc.reason = 'rule'
      and sc.contact_id = any(${sql.array(contactIds, 'text')})
      and sc.rule_id in (
        select id from scoring_rules
        where workspace_id = ${workspaceId} and active and event_type = any(${types})
          and (not repeatable or cooldown_seconds is not null))
    group by sc.rule_id, sc.contact_id`;
}

export function definitionColumns(workspaceId: string, wanted: DefinitionsWanted) {
  const types = sql.array(wanted.eventTypes, 'text');
  return sql.fragment`
      (select coalesce(json_agg(s order by s.id), '[]') from (
        select id, rules, depends_on_event_types, depends_on_score from segments
        where workspace_id = ${workspaceId}
          and (${wanted.allSegments} or depends_on_event_types && ${types} or depends_on_score)
      ) s) as segments,
      (select coalesce(json_agg(c order by c.id), '[]') from (
        select id, trigger, trigger_event_type, trigger_segment_id, reentry from campaigns
        where workspace_id = ${workspaceId} and status = 'active'
          and (trigger_event_type = any(${types}) or trigger_segment_id is not null)
      ) c) as campaigns,
      (select coalesce(json_agg(r order by r.created_at, r.id), '[]') from (
        select id, event_type, points, "where", repeatable, cooldown_seconds, created_at from scoring_rules
        where workspace_id = ${workspaceId} and active and event_type = any(${types})
      ) r) as scoring_rules,
      (select coalesce(json_agg(h), '[]') from (${ruleHistory(workspaceId, types, wanted.contactIds)}) h) as rule_history`;
}
