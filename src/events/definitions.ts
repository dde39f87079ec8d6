// What the ingest pipeline reads of a workspace's configuration: its segments, its active campaigns
// with a trigger, the goals of running campaigns and its active scoring rules. They change rarely
// and are read on every request, so each process caches them per workspace under the workspace's `definitions_version` (moved by
// triggers on every change, sql/0009). The statement that inserts the events reads that number and,
// only when it differs from the cached one, the definitions themselves: no round-trip of its own,
// and a cache can never be used past a change the statement could see. The rule history of the
// request's contacts is read there too.
import { z } from 'zod';
import { CampaignGoalRow, TriggeredCampaignRow } from '../campaigns/index.ts';
import { sql } from '../db/pool.ts';
import { ActiveRuleRow, RuleHistoryRow } from '../scoring/index.ts';
import type { Rule } from '../segments/index.ts';

const SegmentDefinition = z.object({
  id: z.string(),
  rules: z.custom<Rule>(),
  depends_on_event_types: z.array(z.string()),
  depends_on_score: z.boolean(),
});
export type SegmentDefinition = z.infer<typeof SegmentDefinition>;

const WorkspaceDefinitions = z.object({
  segments: z.array(SegmentDefinition),
  campaigns: z.array(TriggeredCampaignRow),
  goals: z.array(CampaignGoalRow),
  scoring_rules: z.array(ActiveRuleRow),
});
type WorkspaceDefinitions = z.infer<typeof WorkspaceDefinitions>;

/** The columns the events insert selects beside the inserted events. */
export const DefinitionColumns = z.object({
  definitions_version: z.number(),
  definitions: WorkspaceDefinitions.nullable(),
  rule_history: z.array(RuleHistoryRow),
});

/**
 * What one request's pipeline applies: the workspace's definitions, whole (each stage picks what
 * concerns its events: segments per contact, triggers and rules by event type), and rule history.
 */
export type Definitions = WorkspaceDefinitions & { rule_history: z.infer<typeof RuleHistoryRow>[] };

export type Cached = { version: number; definitions: WorkspaceDefinitions };

/** The most workspaces cached per process; past it the cache starts over. */
const MAX_CACHED = 1_000;
const cache = new Map<string, Cached>();

/** What the cache holds for the workspace now (the statement is built against this). */
export function cachedDefinitions(workspaceId: string): Cached | undefined {
  return cache.get(workspaceId);
}

/**
 * Definitions: the workspace's segments by id, active campaigns with a trigger by id, active
 * scoring rules by creation, when its version is not `knownVersion`, else null. Rule history:
 * when each rule that is not repeatable or has a cooldown last scored each contact that brought an
 * event of its type (the contacts are locked by now, so it cannot move before scoring).
 */
export function definitionColumns(workspaceId: string, known: Cached | undefined, pairs: ContactTypes) {
  // -1: no workspace has it, so without a cached copy the definitions are always read.
  const knownVersion = known?.version ?? -1;
  return sql.fragment`
      w.definitions_version,
      case when w.definitions_version <> ${knownVersion} then json_build_object(
        'segments', (select coalesce(json_agg(s order by s.id), '[]') from (
          select id, rules, depends_on_event_types, depends_on_score from segments
          where workspace_id = ${workspaceId}) s),
        'campaigns', (select coalesce(json_agg(c order by c.id), '[]') from (
          select id, trigger, trigger_event_type, trigger_segment_id, reentry from campaigns
          where workspace_id = ${workspaceId} and status = 'active'
            and (trigger_event_type is not null or trigger_segment_id is not null)) c),
        'goals', (select coalesce(json_agg(g order by g.id), '[]') from (
          select id, goal from campaigns
          where workspace_id = ${workspaceId} and status in ('active', 'paused') and goal is not null) g),
        'scoring_rules', (select coalesce(json_agg(r order by r.created_at, r.id), '[]') from (
          select id, event_type, points, "where", repeatable, cooldown_seconds, created_at from scoring_rules
          where workspace_id = ${workspaceId} and active) r)
      ) end as definitions,
      (select coalesce(json_agg(h), '[]') from (${ruleHistory(workspaceId, pairs)}) h) as rule_history`;
}

/** Each contact of a request with each event type it brought, as two arrays of the same length. */
export type ContactTypes = { contactIds: string[]; types: string[] };

export function contactTypes(events: readonly { contact_id: string | null; type: string }[]): ContactTypes {
  const pairs = new Map<string, { contactId: string; type: string }>();
  for (const { contact_id, type } of events)
    if (contact_id) pairs.set(`${contact_id} ${type}`, { contactId: contact_id, type });
  const list = [...pairs.values()];
  return { contactIds: list.map((pair) => pair.contactId), types: list.map((pair) => pair.type) };
}

/**
 * When each (rule, contact) last scored, on the clock of the event that scored (so backfilled
 * events keep cooldowns in event time); the change's own time when that event is gone. Only for
 * the limited rules of an event type the contact brought, the only pairs scoring looks up: with
 * every rule of the request's types for every contact of it, a 1,000-event batch read ~1,400
 * history rows where ~150 were needed (most contacts' first signup), 19 ms of the statement.
 */
function ruleHistory(workspaceId: string, { contactIds, types }: ContactTypes) {
  return sql.fragment`
    select sc.rule_id, sc.contact_id, max(coalesce(e.occurred_at, sc.created_at)) as last_at
    from unnest(${sql.array(contactIds, 'text')}::text[], ${sql.array(types, 'text')}::text[]) as p(contact_id, type)
    join scoring_rules r on r.workspace_id = ${workspaceId} and r.event_type = p.type and r.active
      and (not r.repeatable or r.cooldown_seconds is not null)
    join score_changes sc on sc.workspace_id = ${workspaceId} and sc.rule_id = r.id
      and sc.contact_id = p.contact_id and sc.reason = 'rule'
    left join events e on e.workspace_id = sc.workspace_id and e.id = sc.event_id
      and e.occurred_at < now() + interval '1 day' -- skips the months ahead (no event is stored there)
    group by sc.rule_id, sc.contact_id`;
}

/**
 * Stores what the statement read (when it read definitions) and returns them with the rule history.
 * `known`: the cached copy the statement was built against.
 */
export function definitionsFor(
  workspaceId: string,
  known: Cached | undefined,
  columns: z.infer<typeof DefinitionColumns>,
): Definitions {
  let cached = known;
  if (columns.definitions) {
    cached = { version: columns.definitions_version, definitions: columns.definitions };
    if (!cache.has(workspaceId) && cache.size >= MAX_CACHED) cache.clear();
    cache.set(workspaceId, cached);
  }
  if (!cached || cached.version !== columns.definitions_version) {
    throw new Error(`definitions of ${workspaceId} at version ${columns.definitions_version} were not read`);
  }
  return { ...cached.definitions, rule_history: columns.rule_history };
}
