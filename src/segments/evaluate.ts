// Keeping segment_memberships true to the rules for a set of contacts: those an ingest touched, or
// one page of a workspace when a segment is computed or refreshed (paging.ts). It is one statement
// that computes the diff, applies it and returns it; every entry and exit is then recorded as
// segment.entered / segment.exited in the same transaction.
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { preparedByText, sql, type Tx } from '../db/pool.ts';
import { emitMany } from '../outbox/emit.ts';
import { findSegmentsDependingOn, type SegmentRules } from './queries.ts';
import { compileSegmentRules, type DependencyField } from './rules.ts';

export type SegmentChange = { segmentId: string; contactId: string; change: 'entered' | 'exited' };

const ChangeRow = z.object({
  segment_id: z.string(),
  contact_id: z.string(),
  change: z.enum(['entered', 'exited']),
});
/** A diff's row: a membership change, or (`enrolled`, the id in `segment_id`) an enrollment. */
const DiffRow = z.union([
  ChangeRow,
  z.object({ segment_id: z.string(), contact_id: z.null(), change: z.literal('enrolled') }),
]);

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

export type DiffOptions = {
  /**
   * Common table expressions to run first, one of them `scored`: the contacts' rows as they write
   * them (see scoreWrites); the diff then reads those rows instead of the stored ones.
   */
  write?: FragmentSqlToken;
  /** Per segment, the contacts to evaluate it for (default: all of them). */
  only?: ReadonlyMap<string, readonly string[]>;
  /**
   * Common table expressions that insert enrollments, one of them `enrolled` (their ids; see
   * allowedEnrollments), run in the same round-trip: ingest's event-triggered enrollments.
   */
  enroll?: FragmentSqlToken;
  /**
   * The contacts were created in this transaction and no diff has run for them yet: they are in no
   * segment, so there are no exits to look for (a bulk import's new contacts: one membership probe
   * per segment and contact saved, ~1 s of 100,000 contacts with 5 segments).
   */
  fresh?: boolean;
};

const decoder = new TextDecoder();

/**
 * Per contact, a character per segment: '1' where `only` names the contact for that segment (a
 * segment `only` does not name is evaluated for every contact, whatever its character). As the
 * text of a jsonb object, written directly: a map of arrays joined and then stringified took twice
 * as long, on every batch.
 */
function contactFlags(
  segments: readonly SegmentRules[],
  ids: readonly string[],
  only: ReadonlyMap<string, readonly string[]>,
): string {
  const width = segments.length;
  const rowOf = new Map(ids.map((id, row) => [id, row]));
  const cells = new Uint8Array(ids.length * width).fill(0x30); // '0'
  for (const [position, segment] of segments.entries())
    for (const id of only.get(segment.id) ?? []) {
      const row = rowOf.get(id);
      if (row !== undefined) cells[row * width + position] = 0x31; // '1'
    }
  const entries = ids.map(
    (id, row) => `${JSON.stringify(id)}:"${decoder.decode(cells.subarray(row * width, (row + 1) * width))}"`,
  );
  return `{${entries.join(',')}}`;
}

async function diffForContacts(
  tx: Tx,
  workspaceId: string,
  segments: readonly SegmentRules[],
  ids: string[],
  { write, only, enroll, fresh }: DiffOptions,
) {
  const flags = only ? contactFlags(segments, ids, only) : undefined;
  const evaluated = segments.map((segment, position) => {
    const narrowed = only?.has(segment.id);
    return sql.fragment`select ${segment.id}::text as segment_id, c.id as contact_id,
      coalesce(${compileSegmentRules(segment.rules)}, false) as matches
    from targets c${narrowed ? sql.fragment` where substr(c.segment_flags, ${position + 1}, 1) = '1'` : sql.fragment``}`;
  });
  // Each contact's flags ride on its targets row, read once from a jsonb object by key (a binary
  // search). Each segment's own `id = any(subset)` was a linear scan of the subset for every target
  // row: in a generic plan nothing hashes it, and a 1,000-event batch spent ~25 ms of its ~70 ms
  // diff comparing ids (auto_explain).
  const flagsColumn = flags ? sql.fragment`, ${flags}::jsonb ->> t.id as segment_flags` : sql.fragment``;
  // The contacts are found once, not once per segment: with a batch's thousand ids, each
  // segment's own `id = any(…)` scan of the workspace cost more than its rules. The text is
  // the same for the same segments, so it is prepared: parsing and planning it was most of its cost.
  // Exits are found by one primary-key lookup per evaluated pair and deleted by ctid: a join of the
  // memberships with `evaluated` was planned (generic plan, a CTE estimated at a few rows) as a scan
  // of every membership of the workspace, each rescanning `evaluated`: 1.5–6 s of a 1,000-event batch.
  // Fresh contacts are in no segment: nothing to look up.
  const exits = fresh
    ? sql.fragment`select null::text as segment_id, null::text as contact_id where false`
    : sql.fragment`
      delete from segment_memberships m
      where m.ctid = any(array(
        select (select x.ctid from segment_memberships x
                where x.workspace_id = ${workspaceId} and x.segment_id = v.segment_id and x.contact_id = v.contact_id)
        from evaluated v where not v.matches))
      returning m.segment_id, m.contact_id`;
  return tx.any(
    preparedByText(
      'segments.diff',
      DiffRow,
      sql.fragment`
    with ${
      write
        ? sql.fragment`${write}, targets as materialized (select t.*${flagsColumn} from scored t)`
        : sql.fragment`targets as materialized (
      select t.*${flagsColumn} from contacts t
      where t.workspace_id = ${workspaceId} and t.id = any(${sql.array(ids, 'text')})
    )`
    },${enroll ? sql.fragment` ${enroll},` : sql.fragment``}
    evaluated as (${sql.join(evaluated, sql.fragment` union all `)}),
    entered as (
      insert into segment_memberships (workspace_id, segment_id, contact_id)
      select ${workspaceId}, segment_id, contact_id from evaluated where matches
      on conflict do nothing returning segment_id, contact_id
    ),
    exited as (${exits})
    select segment_id, contact_id, 'entered' as change from entered
    union all select segment_id, contact_id, 'exited' as change from exited${
      enroll ? sql.fragment` union all select id, null, 'enrolled' from enrolled` : sql.fragment``
    }
  `,
    ),
  );
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
    /** Created in this transaction, never evaluated (DiffOptions.fresh). */
    fresh?: boolean;
  },
): Promise<SegmentChange[]> {
  if (input.contactIds.length === 0) return [];
  const segments = await findSegmentsDependingOn(tx, input.workspaceId, {
    eventTypes: input.eventTypes ?? [],
    fields: (input.fields ?? []) as DependencyField[],
    score: input.score ?? false,
    all: input.all ?? false,
  });
  return reevaluateSegments(tx, input.workspaceId, segments, input.contactIds, { fresh: input.fresh });
}

/**
 * The same, for segments the caller has already chosen (ingest loads them with its definitions).
 * `options.only` narrows each segment to some of the contacts (a segment with none is skipped);
 * `options.write` runs statements writing these contacts first, in the same round-trip.
 */
export async function reevaluateSegments(
  tx: Tx,
  workspaceId: string,
  chosen: readonly SegmentRules[],
  ids: readonly string[],
  options: Omit<DiffOptions, 'enroll'> = {},
): Promise<SegmentChange[]> {
  return (await reevaluateSegmentsAndEnroll(tx, workspaceId, chosen, ids, options)).changes;
}

const EnrolledRow = z.object({ id: z.string() });

/** The diff's `write` and `enroll` statements without a diff: the ids of the enrollments inserted. */
async function writeAndEnroll(tx: Tx, { write, enroll }: DiffOptions): Promise<Set<string>> {
  const statements = [write, enroll].filter((statement) => statement !== undefined);
  if (statements.length === 0) return new Set();
  const enrolled = await tx.anyFirst(
    preparedByText(
      'segments.write_and_enroll',
      EnrolledRow,
      sql.fragment`with ${sql.join(statements, sql.fragment`, `)}
      ${enroll ? sql.fragment`select id from enrolled` : sql.fragment`select null::text as id where false`}`,
    ),
  );
  return new Set(enrolled);
}

/**
 * reevaluateSegments, also running `options.enroll` in the same statement; with no segment to
 * evaluate, the writes and enrollments run alone. `enrolled`: the ids of the enrollments inserted.
 */
export async function reevaluateSegmentsAndEnroll(
  tx: Tx,
  workspaceId: string,
  chosen: readonly SegmentRules[],
  ids: readonly string[],
  options: DiffOptions = {},
): Promise<{ changes: SegmentChange[]; enrolled: Set<string> }> {
  const contactIds = [...new Set(ids)];
  const segments = chosen.filter((segment) => options.only?.get(segment.id)?.length !== 0);
  if (contactIds.length === 0 || segments.length === 0) {
    return { changes: [], enrolled: await writeAndEnroll(tx, options) };
  }
  const position = new Map(contactIds.map((id, index) => [id, index]));
  const rows = await diffForContacts(tx, workspaceId, segments, contactIds, options);
  const enrolled = new Set(rows.flatMap((row) => (row.change === 'enrolled' ? [row.segment_id] : [])));
  const changes = rows
    .flatMap((row) => (row.change === 'enrolled' ? [] : [toChange(row)]))
    .sort(
      (a, b) =>
        position.get(a.contactId)! - position.get(b.contactId)! ||
        a.segmentId.localeCompare(b.segmentId) ||
        a.change.localeCompare(b.change),
    );
  await emitChanges(tx, workspaceId, changes);
  return { changes, enrolled };
}
