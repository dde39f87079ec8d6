// Segment rows. Membership diffs live in evaluate.ts, next to the compiled rules they run.
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { countConditionEvents, eventCandidateSets } from './compile.ts';
import type { EventCondition } from './conditionSchemas.ts';
import { compileSegmentRules, type DependencyField, type Rule, type RuleDependencies } from './rules.ts';

export const SegmentRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  rules: z.custom<Rule>(),
  status: z.enum(['computing', 'ready']),
  computed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  count: z.number().int(),
});
export type SegmentRow = z.infer<typeof SegmentRow>;

const RulesRow = z.object({ id: z.string(), rules: z.custom<Rule>() });
export type SegmentRules = z.infer<typeof RulesRow>;

/**
 * The members now: the sum of the counts the memberships' triggers keep (sql/0057), exact in the
 * reader's snapshot, instead of counting them (157-185 ms for half a million members).
 */
const memberCount = sql.fragment`(select coalesce(sum(k.members), 0)::int from segment_member_counts k
  where k.workspace_id = s.workspace_id and k.segment_id = s.id)`;

const columns = sql.fragment`s.id, s.workspace_id, s.name, s.description, s.rules, s.status, s.computed_at,
  s.created_at, s.updated_at,
  ${memberCount} as count`;

export async function listSegments(db: Db, workspaceId: string, page: { limit: number; offset: number }) {
  return db.any(sql.type(SegmentRow.extend({ total: z.number().int() }))`
    select ${columns}, count(*) over ()::int as total from segments s
    where s.workspace_id = ${workspaceId}
    order by s.created_at, s.id limit ${page.limit} offset ${page.offset}
  `);
}

export async function countSegments(db: Db, workspaceId: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number().int() }))`
    select count(*)::int as n from segments where workspace_id = ${workspaceId}
  `);
}

/**
 * A segment's version (the time of its last edit: its rules) and its members now, from the counters;
 * null when it is gone. What a count over its members was taken for, and how large that count is.
 */
export async function segmentVersion(db: Db, workspaceId: string, segmentId: string) {
  return db.maybeOne(sql.type(z.object({ updated_at: z.string(), members: z.number().int() }))`
    select s.updated_at, ${memberCount} as members from segments s
    where s.workspace_id = ${workspaceId} and s.id = ${segmentId}`);
}

export async function findSegment(db: Db, workspaceId: string, segmentId: string) {
  return db.maybeOne(sql.type(SegmentRow)`
    select ${columns} from segments s where s.workspace_id = ${workspaceId} and s.id = ${segmentId}
  `);
}

/**
 * Locks the segment row, so concurrent edits and the compute job see one version at a time. The
 * compute job asks for `no key update`: it excludes edits all the same, but not the key-share lock
 * of ingest's membership inserts (their foreign key), which would otherwise queue behind each page.
 */
export async function lockSegment(
  db: Db,
  workspaceId: string,
  segmentId: string,
  strength: 'update' | 'no key update' = 'update',
) {
  return db.maybeOne(sql.type(RulesRow.extend({ updated_at: z.string() }))`
    select id, rules, updated_at from segments where workspace_id = ${workspaceId} and id = ${segmentId}
    ${strength === 'update' ? sql.fragment`for update` : sql.fragment`for no key update`}
  `);
}

export type SegmentWrite = {
  name: string;
  description: string | null;
  rules: Rule;
  dependencies: RuleDependencies;
  status: 'computing' | 'ready';
};

export async function insertSegment(db: Db, workspaceId: string, id: string, input: SegmentWrite) {
  const d = input.dependencies;
  await db.query(sql.typeAlias('void')`
    insert into segments (workspace_id, id, name, description, rules, depends_on_event_types, depends_on_fields,
      depends_on_score, has_time_window, status)
    values (${workspaceId}, ${id}, ${input.name}, ${input.description}, ${sql.jsonb(input.rules)},
      ${sql.array(d.eventTypes, 'text')}, ${sql.array(d.fields, 'text')}, ${d.score}, ${d.timeWindow}, ${input.status})
  `);
}

export async function updateSegment(db: Db, workspaceId: string, id: string, input: SegmentWrite) {
  const d = input.dependencies;
  await db.query(sql.typeAlias('void')`
    update segments set name = ${input.name}, description = ${input.description}, rules = ${sql.jsonb(input.rules)},
      depends_on_event_types = ${sql.array(d.eventTypes, 'text')}, depends_on_fields = ${sql.array(d.fields, 'text')},
      depends_on_score = ${d.score}, has_time_window = ${d.timeWindow}, status = ${input.status},
      updated_at = clock_timestamp(), refresh_cursor = null, refreshed_through = null, refresh_started_at = null
    where workspace_id = ${workspaceId} and id = ${id}
  `);
}

/**
 * The compute job's pages all ran after the version was saved, so every member was evaluated at
 * or after `updated_at`: the refresh can start from there instead of a whole pass.
 */
export async function markSegmentReady(db: Db, workspaceId: string, id: string, version?: string) {
  await db.query(sql.typeAlias('void')`
    update segments set status = 'ready', computed_at = now(), refreshed_through = updated_at
    where workspace_id = ${workspaceId} and id = ${id}
      ${version ? sql.fragment`and date_trunc('milliseconds', updated_at) = ${version}::timestamptz` : sql.fragment``}
  `);
}

export async function deleteSegment(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const result = await db.query(sql.typeAlias('void')`
    delete from segments where workspace_id = ${workspaceId} and id = ${id}
  `);
  return result.rowCount > 0;
}

const TriggeringCampaign = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['draft', 'active', 'paused', 'archived']),
});
export type TriggeringCampaign = z.infer<typeof TriggeringCampaign>;

/** The campaigns whose trigger names the segment, oldest first. */
/**
 * The campaigns that name the segment: a segment-entry trigger (held by a foreign key too), a
 * broadcast's audience, or a branch condition anywhere in the steps. Deleting it under any of them
 * would leave a broadcast with no audience or a branch that silently never holds.
 */
export async function campaignsUsingSegment(db: Db, workspaceId: string, segmentId: string) {
  return db.any(sql.type(TriggeringCampaign)`
    select id, name, status from campaigns
    where workspace_id = ${workspaceId}
      and (trigger_segment_id = ${segmentId}
        or trigger->>'segmentId' = ${segmentId}
        or jsonb_path_exists(steps, '$.**.if.segment ? (@ == $id)', jsonb_build_object('id', ${segmentId}::text)))
    order by created_at, id
  `);
}

/** Serialises segment creation in a workspace for the rest of the transaction, so the cap holds. */
export async function lockWorkspaceSegments(db: Db, workspaceId: string): Promise<void> {
  await db.query(sql.unsafe`
    select pg_advisory_xact_lock(hashtextextended(${`segments.create:${workspaceId}`}, 0))
  `);
}

/** A position in a workspace's contacts, in (created_at, id) order; created_at at full precision. */
export const ContactCursor = z.object({ createdAt: z.string(), id: z.string() });
export type ContactCursor = z.infer<typeof ContactCursor>;

const PageRow = z.object({ id: z.string(), created_at_text: z.string() });

/** The ids of up to `limit` contacts after `after`, through the (workspace, created_at, id) index. */
export async function findContactPage(
  db: Db,
  workspaceId: string,
  after: ContactCursor | null,
  limit: number,
) {
  const rows = await db.any(sql.type(PageRow)`
    select id, created_at::text as created_at_text from contacts
    where workspace_id = ${workspaceId}
      ${after ? sql.fragment`and (created_at, id) > (${after.createdAt}::timestamptz, ${after.id})` : sql.fragment``}
    order by created_at, id limit ${limit}
  `);
  const last = rows.at(-1);
  return {
    ids: rows.map((row) => row.id),
    next: last ? { createdAt: last.created_at_text, id: last.id } : null,
  };
}

/** Segments an ingest change can move: those depending on the event types, fields or score given. */
export async function findSegmentsDependingOn(
  db: Db,
  workspaceId: string,
  on: { eventTypes: string[]; fields: DependencyField[] | string[]; score: boolean; all: boolean },
) {
  return db.any(sql.prepared('segments.depending_on', RulesRow)`
    select id, rules from segments
    where workspace_id = ${workspaceId}
      and (${on.all} or depends_on_event_types && ${sql.array(on.eventTypes, 'text')}
        or depends_on_fields && ${sql.array(on.fields, 'text')} or (${on.score} and depends_on_score))
    order by id
  `);
}

/**
 * Segments whose rules read the clock (`within`), optionally in one workspace; those being
 * computed are left to their compute job. In each workspace, a pass in progress comes first, then
 * the segment refreshed longest ago: a budget that ends mid-workspace starves no segment.
 */
export async function findTimeWindowSegments(db: Db, workspaceId: string | null) {
  return db.any(sql.type(z.object({ id: z.string(), workspace_id: z.string() }))`
    select id, workspace_id from segments
    where has_time_window and status = 'ready'
      ${workspaceId ? sql.fragment`and workspace_id = ${workspaceId}` : sql.fragment``}
    order by workspace_id, refresh_cursor is null, computed_at nulls first, id
  `);
}

const RefreshRow = RulesRow.extend({
  status: z.enum(['computing', 'ready']),
  refresh_cursor: ContactCursor.nullable(),
  refreshed_through: z.string().nullable(),
  /** The transaction's own now(): the time this page or pass evaluates at. */
  now: z.string(),
});

/**
 * Locks a segment for one page of its refresh, with where its pass stands. `for no key update`, not
 * `for update`: it still waits for an edit or another refresh of the segment, but not for the
 * key-share lock every membership insert takes on its segment (the foreign key), so ingest adding
 * contacts to the segment does not queue behind the refresh's page.
 */
export async function lockSegmentForRefresh(db: Db, workspaceId: string, segmentId: string) {
  return db.maybeOne(sql.type(RefreshRow)`
    select id, rules, status, refresh_cursor, refreshed_through, now() as now from segments
    where workspace_id = ${workspaceId} and id = ${segmentId} for no key update
  `);
}

/**
 * Records where a whole pass stands. Its first page notes when it began; the last (null cursor)
 * dates the computation and makes that beginning the time every member was evaluated after.
 */
export async function saveRefreshCursor(
  db: Db,
  workspaceId: string,
  id: string,
  cursor: ContactCursor | null,
) {
  await db.query(sql.typeAlias('void')`
    update segments set refresh_cursor = ${cursor ? sql.jsonb(cursor) : null},
      refresh_started_at = case when refresh_cursor is null then now() else refresh_started_at end
      ${
        cursor
          ? sql.fragment``
          : sql.fragment`, computed_at = now(),
        refreshed_through = case when refresh_cursor is null then now() else refresh_started_at end`
      }
    where workspace_id = ${workspaceId} and id = ${id}
  `);
}

/** An incremental refresh has covered everything up to `through`. */
export async function saveRefreshedThrough(db: Db, workspaceId: string, id: string, through: string) {
  await db.query(sql.typeAlias('void')`
    update segments set refreshed_through = ${through}::timestamptz, computed_at = now()
    where workspace_id = ${workspaceId} and id = ${id}
  `);
}

/** A `within` condition: events of this type count for this many seconds after they occur. */
export type TimeWindow = { eventType: string; seconds: number };

const CrossedRow = z.object({ ids: z.array(z.string()), cut: z.string().nullable() });

/**
 * Contacts with an event that left a window between `from` and `to` (it counted at `from`, it no
 * longer does at `to`): only theirs can have changed by time passing alone. One range of the
 * (workspace, type, time) index per window, so the cost follows the events that crossed an edge,
 * not the size of the workspace. With a `limit`, at most that many crossings, the earliest: then
 * `through` is the time before which every crossing is among them (`to` when all are), so a
 * backlog larger than a run's budget (a day without refreshes over a million contacts) is worked
 * off in slices of time, run after run, instead of falling back to a pass over every contact.
 */
export async function findContactsCrossingWindows(
  db: Db,
  workspaceId: string,
  windows: readonly TimeWindow[],
  range: { from: string; to: string },
  limit: number | null,
): Promise<{ ids: readonly string[]; through: string }> {
  const ranges = windows.map(
    (
      window,
    ) => sql.fragment`select contact_id, occurred_at + make_interval(secs => ${window.seconds}) as crossed_at
      from events
      where workspace_id = ${workspaceId} and type = ${window.eventType} and contact_id is not null
        and occurred_at >= ${range.from}::timestamptz - make_interval(secs => ${window.seconds})
        and occurred_at < ${range.to}::timestamptz - make_interval(secs => ${window.seconds})`,
  );
  const crossed = sql.fragment`(${sql.join(ranges, sql.fragment` union all `)}) as crossed`;
  // Past the limit, the cut is the first crossing left out; those at that very time wait with it.
  const row = await db.one(sql.type(CrossedRow)`
    with first as (
      select contact_id, crossed_at from ${crossed}
      ${limit === null ? sql.fragment`` : sql.fragment`order by crossed_at limit ${limit + 1}`}
    ),
    cut as (select max(crossed_at) as at from first having count(*) > ${limit ?? Number.MAX_SAFE_INTEGER})
    select coalesce(array_agg(distinct contact_id order by contact_id), '{}') as ids, (select at from cut) as cut
    from first where crossed_at < coalesce((select at from cut), 'infinity')
  `);
  return { ids: row.ids, through: row.cut ?? range.to };
}

export async function findScoreSegments(db: Db, workspaceId: string) {
  return db.any(sql.type(RulesRow)`
    select id, rules from segments where workspace_id = ${workspaceId} and depends_on_score order by id
  `);
}

const Verdicts = z.object({
  matches: z.boolean(),
  passed: z.array(z.boolean()),
  counts: z.array(z.number().int().nullable()),
  now: z.string(),
});

/**
 * For one contact: whether the whole rule holds, whether each of its conditions (`leaves`, in the
 * order they are written) holds, and for each event condition how many events it counted, up to
 * `cap` (null for the other conditions). All at the same now(), in one statement.
 */
export async function evaluateConditions(
  db: Db,
  workspaceId: string,
  contactId: string,
  rule: Rule,
  leaves: readonly Rule[],
  events: readonly (EventCondition | null)[],
  cap: number,
) {
  const passed = leaves.map((leaf) => sql.fragment`coalesce(${compileSegmentRules(leaf)}, false)`);
  const counts = events.map((event) => (event ? countConditionEvents(event, cap) : sql.fragment`null::int`));
  return db.one(sql.type(Verdicts)`
    select coalesce(${compileSegmentRules(rule)}, false) as matches,
      array[${sql.join(passed, sql.fragment`, `)}]::boolean[] as passed,
      array[${sql.join(counts, sql.fragment`, `)}]::int[] as counts,
      now() as now
    from contacts c where c.workspace_id = ${workspaceId} and c.id = ${contactId}
  `);
}

export async function findMembership(db: Db, workspaceId: string, segmentId: string, contactId: string) {
  return db.maybeOne(sql.type(z.object({ entered_at: z.string() }))`
    select entered_at from segment_memberships
    where workspace_id = ${workspaceId} and segment_id = ${segmentId} and contact_id = ${contactId}
  `);
}

const PlanRow = z.object({
  'QUERY PLAN': z.array(z.object({ Plan: z.object({ 'Plan Rows': z.number() }) })),
});

/** How many rows the planner expects a query to give, from the tables' statistics (no run). */
async function estimatedRows(db: Db, query: FragmentSqlToken): Promise<number> {
  const row = await db.one(sql.type(PlanRow)`explain (format json) ${query}`);
  return row['QUERY PLAN'][0]!.Plan['Plan Rows'];
}

/**
 * `and c.id in (…)` for the sets of contacts the rule's matches must belong to (eventCandidateSets)
 * that the planner expects to be small. A set of many contacts is left out: walking the contacts
 * newest first finds the cap's matches among them soon, and reading all of its events first is
 * what would cost ("a purchase in 30 days" over a million contacts: past the statement timeout).
 */
async function candidatesOf(db: Db, rule: Rule, workspaceId: string, most: number) {
  const sets = [];
  for (const set of eventCandidateSets(rule, workspaceId))
    if ((await estimatedRows(db, set)) <= most) sets.push(set);
  if (sets.length === 0) return sql.fragment``;
  return sql.join(
    sets.map((set) => sql.fragment`and c.id in (${set})`),
    sql.fragment` `,
  );
}

const PreviewRow = z.object({
  count: z.number().int(),
  sample: z.array(
    z.object({
      id: z.string(),
      email: z.string().nullable(),
      firstName: z.string().nullable(),
      lastName: z.string().nullable(),
    }),
  ),
});

/**
 * The contacts an unsaved rule matches: how many, counting no further than `cap` + 1, and the
 * newest `sample` of them. One walk of the (workspace, created_at, id) index, newest first, that
 * stops at the cap's match; where the rule needs events, only among the contacts that have them
 * (eventCandidateSets), so a rule few contacts match is not a lookup per contact of the workspace.
 */
export async function previewRule(db: Db, workspaceId: string, rule: Rule, cap: number, sample: number) {
  const candidates = await candidatesOf(db, rule, workspaceId, cap * 10);
  return db.one(sql.type(PreviewRow)`
    with hits as materialized (
      select c.id, c.email, c.first_name, c.last_name, c.created_at from contacts c
      where c.workspace_id = ${workspaceId}
        ${candidates}
        and coalesce(${compileSegmentRules(rule)}, false)
      order by c.created_at desc, c.id desc limit ${cap + 1}
    )
    select (select count(*)::int from hits) as count,
      coalesce((select json_agg(json_build_object('id', s.id, 'email', s.email, 'firstName', s.first_name,
        'lastName', s.last_name) order by s.created_at desc, s.id desc)
        from (select * from hits order by created_at desc, id desc limit ${sample}) as s), '[]') as sample
  `);
}

const DailyChangesRow = z.object({
  segment_id: z.string(),
  day: z.string(),
  entered: z.number().int(),
  exited: z.number().int(),
});

/** Entries and exits per segment per UTC day since `from` (a date), only the days with any. */
export async function findDailyChanges(
  db: Db,
  workspaceId: string,
  segmentIds: readonly string[],
  from: string,
) {
  return db.any(sql.type(DailyChangesRow)`
    select segment_id, to_char(day, 'YYYY-MM-DD') as day, sum(entered)::int as entered, sum(exited)::int as exited
    from segment_daily_changes
    where workspace_id = ${workspaceId} and segment_id = any(${sql.array(segmentIds, 'text')})
      and day >= ${from}::date
    group by segment_id, day
  `);
}

const RefreshStateRow = z.object({
  has_time_window: z.boolean(),
  refresh_cursor: z.unknown().nullable(),
  refreshed_through: z.string().nullable(),
});

export async function findRefreshState(db: Db, workspaceId: string, segmentId: string) {
  return db.maybeOne(sql.type(RefreshStateRow)`
    select has_time_window, refresh_cursor, refreshed_through from segments
    where workspace_id = ${workspaceId} and id = ${segmentId}
  `);
}

const MemberRow = z.object({
  id: z.string(),
  email: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  lead_score: z.number().int(),
  entered_at: z.string(),
  /** entered_at at full precision, for the next page's cursor. */
  position: z.string(),
});

/**
 * A page of a segment's members, latest entered first, after `after` ([entered_at, contact id]):
 * keyset paging down the memberships' (workspace, segment, entered_at) index, never OFFSET.
 */
export async function listMembersAfter(
  db: Db,
  workspaceId: string,
  segmentId: string,
  after: readonly [string, string] | null,
  limit: number,
) {
  return db.any(sql.type(MemberRow)`
    select c.id, c.email, c.first_name, c.last_name, c.lead_score, m.entered_at, m.entered_at::text as position
    from segment_memberships m
    join contacts c on c.workspace_id = m.workspace_id and c.id = m.contact_id
    where m.workspace_id = ${workspaceId} and m.segment_id = ${segmentId}
      ${after ? sql.fragment`and (m.entered_at, m.contact_id) < (${after[0]}::timestamptz, ${after[1]})` : sql.fragment``}
    order by m.entered_at desc, m.contact_id desc
    limit ${limit}
  `);
}

/** The contact's memberships: which segments, since when. */
export async function findMembershipsOfContact(db: Db, workspaceId: string, contactId: string) {
  return db.any(sql.type(z.object({ segment_id: z.string(), entered_at: z.string() }))`
    select segment_id, entered_at from segment_memberships
    where workspace_id = ${workspaceId} and contact_id = ${contactId}
  `);
}
