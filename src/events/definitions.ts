// What the ingest pipeline reads of a workspace's configuration: its segments, its active campaigns
// with a trigger, the goals of running campaigns and its active scoring rules. They change rarely
// and are read on every request, so each process caches them per workspace under the workspace's `definitions_version` (moved by
// triggers on every change, sql/0009). The statement that inserts the events reads that number and,
// only when it differs from the cached one, the definitions themselves: no round-trip of its own,
// and a cache can never be used past a change the statement could see. The rule history of the
// request's contacts is read once they are locked (readRuleHistory).
import { z } from 'zod';
import { CampaignGoalRow, TriggeredCampaignRow } from '../campaigns/index.ts';
import { type Db, sql } from '../db/pool.ts';
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
export type WorkspaceDefinitions = z.infer<typeof WorkspaceDefinitions>;

/** The columns the events insert selects beside the inserted events. */
export const DefinitionColumns = z.object({
  definitions_version: z.number(),
  definitions: WorkspaceDefinitions.nullable(),
});

/**
 * What one request's pipeline applies: the workspace's definitions, whole (each stage picks what
 * concerns its events: segments per contact, triggers and rules by event type), and rule history.
 */
export type Definitions = WorkspaceDefinitions & { rule_history: readonly RuleHistoryRow[] };

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
 * scoring rules by creation, when its version is not `knownVersion`, else null.
 */
export function definitionColumns(workspaceId: string, known: Cached | undefined) {
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
      ) end as definitions`;
}

/** Each contact of a request with each event type it brought. */
export type ContactTypes = { contactId: string; type: string }[];

export function contactTypes(events: readonly { contact_id: string | null; type: string }[]): ContactTypes {
  const pairs = new Map<string, { contactId: string; type: string }>();
  for (const { contact_id, type } of events)
    if (contact_id) pairs.set(`${contact_id} ${type}`, { contactId: contact_id, type });
  return [...pairs.values()];
}

/**
 * When each limited rule (not repeatable, or with a cooldown) last scored each contact that
 * brought an event of its type, on the clock of the event that scored (so backfilled events keep
 * cooldowns in event time); the change's own time when that event is gone. Read once the contacts
 * are locked, so it cannot move before scoring. The rules are those of the definitions the request
 * applies (read before the lock), not the table's: a rule switched off meanwhile still finds its
 * history. Only the pairs scoring looks up: every rule of the request's types for every contact of
 * it read ~1,400 history rows of a 1,000-event batch where ~150 were needed.
 */
export async function readRuleHistory(
  db: Db,
  workspaceId: string,
  rules: readonly ActiveRuleRow[],
  pairs: ContactTypes,
): Promise<readonly RuleHistoryRow[]> {
  const limited = rules.filter((rule) => !rule.repeatable || rule.cooldown_seconds !== null);
  const wanted = pairs.flatMap(({ contactId, type }) =>
    limited.flatMap((rule) => (rule.event_type === type ? [{ contactId, ruleId: rule.id }] : [])),
  );
  if (wanted.length === 0) return [];
  const contactIds = sql.array(
    wanted.map((pair) => pair.contactId),
    'text',
  );
  const ruleIds = sql.array(
    wanted.map((pair) => pair.ruleId),
    'text',
  );
  return db.any(sql.prepared('events.rule_history', RuleHistoryRow)`
    select sc.rule_id, sc.contact_id, max(coalesce(e.occurred_at, sc.created_at)) as last_at
    from unnest(${contactIds}::text[], ${ruleIds}::text[]) as p(contact_id, rule_id)
    join score_changes sc on sc.workspace_id = ${workspaceId} and sc.rule_id = p.rule_id
      and sc.contact_id = p.contact_id and sc.reason = 'rule'
    left join events e on e.workspace_id = sc.workspace_id and e.id = sc.event_id
      and e.occurred_at < now() + interval '1 day' -- skips the months ahead (no event is stored there)
    group by sc.rule_id, sc.contact_id`);
}

/**
 * Stores what the statement read (when it read definitions) and returns them.
 * `known`: the cached copy the statement was built against.
 */
export function definitionsFor(
  workspaceId: string,
  known: Cached | undefined,
  columns: z.infer<typeof DefinitionColumns>,
): WorkspaceDefinitions {
  let cached = known;
  if (columns.definitions) {
    cached = { version: columns.definitions_version, definitions: columns.definitions };
    if (!cache.has(workspaceId) && cache.size >= MAX_CACHED) cache.clear();
    cache.set(workspaceId, cached);
  }
  if (!cached || cached.version !== columns.definitions_version) {
    throw new Error(`definitions of ${workspaceId} at version ${columns.definitions_version} were not read`);
  }
  return cached.definitions;
}
