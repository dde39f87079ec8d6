// A segment is computed over a workspace one page of contacts at a time, each page its own short
// statement and transaction: the compute job (a new or edited segment) and the scheduled refresh
// (segments with time windows) both walk the contacts this way, so no statement runs over every
// contact of a workspace and another workspace's work gets the database between pages.
import type { Tx } from '../db/pool.ts';
import { membershipChanged } from './effects.ts';
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
 * Evaluates the segment for the page of contacts after `after`, applies and emits the entries and
 * exits (segment.entered / segment.exited) and lets campaigns act on them. Idempotent: a page run
 * twice finds nothing left to change.
 */
export async function evaluatePage(
  tx: Tx,
  workspaceId: string,
  segment: SegmentRules,
  after: ContactCursor | null,
  pageSize: number,
): Promise<PageResult> {
  const page = await findContactPage(tx, workspaceId, after, pageSize);
  const changes = await reevaluateSegments(tx, workspaceId, [segment], page.ids);
  await membershipChanged(tx, workspaceId, changes);
  const last = page.ids.length < pageSize;
  return { changes, next: last ? null : page.next, rows: page.ids.length };
}
