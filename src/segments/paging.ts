// A segment is computed over a workspace one page of contacts at a time, each page its own short
// statement and transaction: the compute job (a new or edited segment) and the scheduled refresh
// (segments with time windows) both walk the contacts this way, so no statement runs over every
// contact of a workspace and another workspace's work gets the database between pages.
import { sql, type Tx } from '../db/pool.ts';
import type { SegmentEffects } from './effects.ts';
import { reevaluateSegments, type SegmentChange } from './evaluate.ts';
import { type ContactCursor, findContactPage, type SegmentRules } from './queries.ts';

export type PageResult = {
  changes: SegmentChange[];
  /** Where the next page starts; null once the last page is done. */
  next: ContactCursor | null;
  /** Contacts evaluated. */
  rows: number;
};

/**
 * Plans the rest of this page's transaction for its own parameters and the tables as they are now.
 * The segment diff is a prepared statement, and its generic plan is kept per connection until the
 * tables are next analyzed: one made while segment_memberships was nearly empty (a workspace's
 * first segment) deletes a page's exits by a sequential scan of every membership per contact, and
 * a 20,000-contact refresh spent seconds per page on it. Planning costs a page a few milliseconds;
 * ingest, which runs the diff for a handful of contacts, keeps its generic plan.
 */
export async function planPageAfresh(tx: Tx): Promise<void> {
  await tx.query(sql.unsafe`set local plan_cache_mode = force_custom_plan`);
}

/**
 * Evaluates the segment for the page of contacts after `after`, applies and emits the entries and
 * exits (segment.entered / segment.exited) and lets campaigns act on them. Idempotent: a page run
 * twice finds nothing left to change.
 */
export async function evaluatePage(
  tx: Tx,
  effects: SegmentEffects,
  workspaceId: string,
  segment: SegmentRules,
  after: ContactCursor | null,
  pageSize: number,
): Promise<PageResult> {
  await planPageAfresh(tx);
  const page = await findContactPage(tx, workspaceId, after, pageSize);
  const changes = await reevaluateSegments(tx, workspaceId, [segment], page.ids);
  await effects.membershipChanged(tx, workspaceId, changes);
  const last = page.ids.length < pageSize;
  return { changes, next: last ? null : page.next, rows: page.ids.length };
}
