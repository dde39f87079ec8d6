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

/** Each segment's verdict on each contact of `targets`, with every event condition counted once. */
function evaluateTargets(workspaceId: string, segments: readonly SegmentRules[], ids: string[]) {
  const counts = new EventCounts(workspaceId, ids);
  const evaluated = segments.map((segment) => {
    const used = new Set<string>();
    const rules = compileSegmentRules(segment.rules, { workspaceId, eventCount: counts.counter(used) });
    return sql.fragment`select ${segment.id}::text as segment_id, c.id as contact_id,
      coalesce(${rules}, false) as matches
    from targets c ${counts.joins(used)}`;
  });
  return sql.join(
    [...counts.ctes(), sql.fragment`evaluated as (${sql.join(evaluated, sql.fragment` union all `)})`],
    sql.fragment`, `,
  );
}

// Everything is joined to `targets`, whose size the planner knows from the id array, rather than
// to further copies of the array: an estimate of ten rows made it nest loops over thousands.
// Only real changes are written: the current memberships of the targets (by the contact index)
// are compared with the verdicts, and exits are deleted by the row ids read there, so neither the
// insert nor the delete probes every unchanged pair, nor scans the table whatever its estimates.
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
    ${evaluateTargets(workspaceId, segments, contactIds)},
    current as (
      select m.ctid as row_id, m.segment_id, m.contact_id
      from targets t join segment_memberships m on m.contact_id = t.id
      where m.segment_id = any(${sql.array(segmentIds, 'text')})
    ),
    changed as materialized (
      select v.segment_id, v.contact_id, v.matches, m.row_id from evaluated v
      left join current m on m.segment_id = v.segment_id and m.contact_id = v.contact_id
      where v.matches <> (m.row_id is not null)
    ),
    entered as (
      insert into segment_memberships (workspace_id, segment_id, contact_id)
      select ${workspaceId}, segment_id, contact_id from changed where matches
      on conflict do nothing returning segment_id, contact_id
    ),
    exited as (
      delete from segment_memberships
      where ctid = any(array(select row_id from changed where not matches))
      returning segment_id, contact_id
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
