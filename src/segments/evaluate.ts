// Keeping segment_memberships true to the rules: for a few contacts inside the ingest
// transaction, or for a whole workspace when a segment is created, edited or refreshed. Both are
// one statement that computes the diff, applies it and returns it; every entry and exit is then
// recorded as segment.entered / segment.exited in the same transaction.
import { z } from 'zod';
import { sql, type Tx } from '../db/pool.ts';
import { emitMany } from '../outbox/emit.ts';
import { EventCounts } from './eventCounts.ts';
import { findSegmentsDependingOn, type SegmentRules } from './queries.ts';
import { compileSegmentRules, type DependencyField } from './rules.ts';

export type SegmentChange = { segmentId: string; contactId: string; change: 'entered' | 'exited' };

const ChangeRow = z.object({
  segment_id: z.string(),
  contact_id: z.string(),
  change: z.enum(['entered', 'exited']),
});

/** Emitting thousands of changes (a new segment over a large workspace) goes in slices. */
const EMIT_SLICE = 5_000;

async function emitChanges(tx: Tx, workspaceId: string, changes: readonly SegmentChange[]) {
  for (let start = 0; start < changes.length; start += EMIT_SLICE) {
    await emitMany(
      tx,
      changes.slice(start, start + EMIT_SLICE).map((change) => ({
        workspaceId,
        type: change.change === 'entered' ? 'segment.entered' : 'segment.exited',
        data: { segmentId: change.segmentId, contactId: change.contactId },
      })),
    );
  }
}

const toChange = (row: z.infer<typeof ChangeRow>): SegmentChange => ({
  segmentId: row.segment_id,
  contactId: row.contact_id,
  change: row.change,
});

/**
 * Below this many contacts, event conditions stay correlated subqueries: for one or a few
 * contacts they probe as little and plan in a fraction of the time (a single event's ingest).
 */
const SET_BASED_FROM = 20;

/** Each segment's verdict on each contact of `targets`, with every event condition counted once. */
function evaluateTargets(workspaceId: string, segments: readonly SegmentRules[], targets: number) {
  const counts = targets >= SET_BASED_FROM ? new EventCounts(workspaceId) : null;
  const evaluated = segments.map((segment) => {
    const used = new Set<string>();
    const eventCount = counts?.counter(used);
    const rules = compileSegmentRules(segment.rules, { workspaceId, eventCount });
    return sql.fragment`select ${segment.id}::text as segment_id, c.id as contact_id,
      coalesce(${rules}, false) as matches
    from targets c ${counts?.joins(used) ?? sql.fragment``}`;
  });
  return sql.join(
    [
      ...(counts?.ctes() ?? []),
      sql.fragment`evaluated as (${sql.join(evaluated, sql.fragment` union all `)})`,
    ],
    sql.fragment`, `,
  );
}

// The id array is bound once, in `targets`, and everything else joins to that: each further copy
// of a thousand ids cost milliseconds of planning. Only real changes are written: the verdicts are
// compared with the targets' current memberships, so neither the insert nor the delete probes
// every unchanged pair. The exits reach the delete as arrays, whose few rows the planner expects,
// so it deletes by primary key rather than hashing the whole table, as it did when it was joined
// to every verdict.
async function diffForContacts(
  tx: Tx,
  workspaceId: string,
  segments: readonly SegmentRules[],
  contactIds: string[],
) {
  const segmentIds = segments.map((segment) => segment.id);
  return tx.any(sql.type(ChangeRow)`
    with targets as materialized (
      select * from contacts where workspace_id = ${workspaceId} and id = any(${sql.array(contactIds, 'text')})
    ),
    ${evaluateTargets(workspaceId, segments, contactIds.length)},
    current as (
      select m.segment_id, m.contact_id from targets t join segment_memberships m on m.contact_id = t.id
      where m.segment_id = any(${sql.array(segmentIds, 'text')})
    ),
    changed as materialized (
      select v.segment_id, v.contact_id, v.matches from evaluated v
      left join current m on m.segment_id = v.segment_id and m.contact_id = v.contact_id
      where v.matches <> (m.contact_id is not null)
    ),
    entered as (
      insert into segment_memberships (workspace_id, segment_id, contact_id)
      select ${workspaceId}, segment_id, contact_id from changed where matches
      on conflict do nothing returning segment_id, contact_id
    ),
    exits as (
      select array_agg(segment_id) as segment_ids, array_agg(contact_id) as contact_ids
      from changed where not matches
    ),
    exited as (
      delete from segment_memberships m
      using exits, unnest(exits.segment_ids, exits.contact_ids) as gone (segment_id, contact_id)
      where m.segment_id = gone.segment_id and m.contact_id = gone.contact_id
      returning m.segment_id, m.contact_id
    )
    select segment_id, contact_id, 'entered' as change from entered
    union all select segment_id, contact_id, 'exited' as change from exited
  `);
}

/**
 * Re-evaluates, for these contacts only, the segments whose rules can depend on what changed;
 * applies entries and exits and emits them. Changes come back ordered by the contacts' order in
 * the input, then by segment (ids sort by creation), so callers can act on them deterministically.
 */
export async function reevaluateSegmentsForContacts(
  tx: Tx,
  input: {
    workspaceId: string;
    contactIds: string[];
    eventTypes?: string[];
    fields?: string[];
    score?: boolean;
    all?: boolean;
  },
): Promise<SegmentChange[]> {
  if (input.contactIds.length === 0) return [];
  const segments = await findSegmentsDependingOn(tx, input.workspaceId, {
    eventTypes: input.eventTypes ?? [],
    fields: (input.fields ?? []) as DependencyField[],
    score: input.score ?? false,
    all: input.all ?? false,
  });
  return reevaluateSegments(tx, input.workspaceId, segments, input.contactIds);
}

/** The same, for segments the caller has already chosen (ingest loads them with its definitions). */
export async function reevaluateSegments(
  tx: Tx,
  workspaceId: string,
  segments: readonly SegmentRules[],
  ids: readonly string[],
): Promise<SegmentChange[]> {
  const contactIds = [...new Set(ids)];
  if (contactIds.length === 0 || segments.length === 0) return [];
  const position = new Map(contactIds.map((id, index) => [id, index]));
  const changes = (await diffForContacts(tx, workspaceId, segments, contactIds))
    .map(toChange)
    .sort(
      (a, b) =>
        position.get(a.contactId)! - position.get(b.contactId)! ||
        a.segmentId.localeCompare(b.segmentId) ||
        a.change.localeCompare(b.change),
    );
  await emitChanges(tx, workspaceId, changes);
  return changes;
}

/**
 * Recomputes one segment over every contact of its workspace, set-based, and emits the changes.
 * Safe to run twice or beside ingest: inserts skip existing rows, deletes of gone rows do nothing.
 */
export async function computeSegment(
  tx: Tx,
  workspaceId: string,
  segment: SegmentRules,
): Promise<SegmentChange[]> {
  const rows = await tx.any(sql.type(ChangeRow)`
    with matched as materialized (
      select c.id from contacts c
      where c.workspace_id = ${workspaceId} and coalesce(${compileSegmentRules(segment.rules, { workspaceId })}, false)
    ),
    entered as (
      insert into segment_memberships (workspace_id, segment_id, contact_id)
      select ${workspaceId}, ${segment.id}, id from matched
      on conflict do nothing returning segment_id, contact_id
    ),
    exited as (
      delete from segment_memberships m
      where m.segment_id = ${segment.id} and not exists (select 1 from matched where matched.id = m.contact_id)
      returning m.segment_id, m.contact_id
    )
    select segment_id, contact_id, 'entered' as change from entered
    union all select segment_id, contact_id, 'exited' as change from exited
    order by contact_id, change
  `);
  const changes = rows.map(toChange);
  await emitChanges(tx, workspaceId, changes);
  return changes;
}
