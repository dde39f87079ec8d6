// What the side effects of an import read: the workspace's active scoring rules and triggered
// campaigns, the scores and rule history of a page of contacts; and the enrollments they insert.
import { z } from 'zod';
import { allowedEnrollments, TriggeredCampaignRow } from '../campaigns/index.ts';
import { sql, type Tx } from '../db/pool.ts';
import { ActiveRuleRow, RuleHistoryRow } from '../scoring/index.ts';

type EnrollmentCandidate = Parameters<typeof allowedEnrollments>[1][number];

/** Active rules in creation order, as ingest applies them. */
export async function activeRules(tx: Tx, workspaceId: string) {
  return tx.any(sql.type(ActiveRuleRow)`
    select id, event_type, points, "where", repeatable, cooldown_seconds from scoring_rules
    where workspace_id = ${workspaceId} and active order by created_at, id
  `);
}

export async function triggeredCampaigns(tx: Tx, workspaceId: string) {
  return tx.any(sql.type(TriggeredCampaignRow)`
    select id, trigger, trigger_event_type, trigger_segment_id, reentry from campaigns
    where workspace_id = ${workspaceId} and status = 'active'
      and (trigger_event_type is not null or trigger_segment_id is not null)
    order by id
  `);
}

/** The contacts' lead scores, locked until the import commits (ingest scores under the same lock). */
export async function lockScores(tx: Tx, workspaceId: string, contactIds: string[]) {
  const rows = await tx.any(sql.type(z.object({ id: z.string(), lead_score: z.number() }))`
    select id, lead_score from contacts
    where workspace_id = ${workspaceId} and id = any(${sql.array(contactIds, 'text')})
    order by id for update
  `);
  return new Map(rows.map((row) => [row.id, row.lead_score]));
}

/** When each limited rule (not repeatable, or with a cooldown) last scored each contact, in event time. */
export async function ruleHistory(tx: Tx, workspaceId: string, contactIds: string[], ruleIds: string[]) {
  if (ruleIds.length === 0) return [];
  return tx.any(sql.type(RuleHistoryRow)`
    select sc.rule_id, sc.contact_id, max(coalesce(e.occurred_at, sc.created_at)) as last_at
    from score_changes sc left join events e on e.id = sc.event_id and e.workspace_id = sc.workspace_id
    where sc.workspace_id = ${workspaceId} and sc.reason = 'rule'
      and sc.contact_id = any(${sql.array(contactIds, 'text')})
      and sc.rule_id = any(${sql.array(ruleIds, 'text')})
    group by sc.rule_id, sc.contact_id
  `);
}

export async function insertEnrollments(tx: Tx, workspaceId: string, candidates: EnrollmentCandidate[]) {
  if (candidates.length === 0) return new Set<string>();
  const ids = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
    with ${allowedEnrollments(workspaceId, candidates)}
    select id from enrolled
  `);
  return new Set(ids);
}

/**
 * Fresh statistics of segment_memberships once the import's first page has entered some: a diff
 * probes each contact's membership by its key, and a table whose statistics predate the import
 * (empty on a new installation) had the planner probe through (workspace, segment, entered_at)
 * instead, reading every membership of the segment per probe (4.0 of a 4.3 s diff of 5,000
 * contacts). ANALYZE counts the transaction's own rows; the prepared diff is replanned.
 */
export async function refreshMembershipStatistics(tx: Tx) {
  await tx.query(sql.typeAlias('void')`analyze segment_memberships`);
}
