// The refresh of segments whose rules read the clock (`within`): each is re-evaluated page by page
// (paging.ts), under a budget of contacts and time per workspace per run, so a workspace with a
// million contacts cannot keep the run from the others. A pass the budget cuts short resumes where
// it stopped on the next run (segments.refresh_cursor), before the segments refreshed longest ago.
import type { Db } from '../db/pool.ts';
import { runAsWorkspace } from '../db/workspaceShare.ts';
import { evaluatePage } from './paging.ts';
import { findTimeWindowSegments, lockSegmentForRefresh, saveRefreshCursor } from './queries.ts';

export type RefreshResult = { workspaceId: string; segmentId: string; entered: string[]; exited: string[] };

/** Per workspace per run: contacts evaluated (over all its segments) and milliseconds. */
export type RefreshBudget = { rows: number; ms: number; pageSize: number };

type Spent = { rows: number; deadline: number };

const exhausted = (budget: RefreshBudget, spent: Spent) =>
  spent.rows >= budget.rows || Date.now() >= spent.deadline;

/** One page of one segment's pass, under the segment's row lock; null when there is nothing to do. */
async function refreshPage(db: Db, workspaceId: string, segmentId: string, pageSize: number) {
  return db.transaction(async (tx) => {
    // Locked so an edit in flight finishes first; a segment deleted or being computed is skipped.
    const segment = await lockSegmentForRefresh(tx, workspaceId, segmentId);
    if (segment?.status !== 'ready') return null;
    const page = await evaluatePage(tx, workspaceId, segment, segment.refresh_cursor, pageSize);
    await saveRefreshCursor(tx, workspaceId, segmentId, page.next);
    return page;
  });
}

async function refreshSegment(
  db: Db,
  result: RefreshResult,
  budget: RefreshBudget,
  spent: Spent,
): Promise<void> {
  while (!exhausted(budget, spent)) {
    const page = await refreshPage(db, result.workspaceId, result.segmentId, budget.pageSize);
    if (!page) return;
    spent.rows += page.rows;
    for (const change of page.changes) {
      (change.change === 'entered' ? result.entered : result.exited).push(change.contactId);
    }
    if (!page.next) return;
  }
}

async function refreshWorkspace(db: Db, workspaceId: string, segmentIds: string[], budget: RefreshBudget) {
  const spent: Spent = { rows: 0, deadline: Date.now() + budget.ms };
  const results: RefreshResult[] = [];
  for (const segmentId of segmentIds) {
    if (exhausted(budget, spent)) break;
    const result: RefreshResult = { workspaceId, segmentId, entered: [], exited: [] };
    await runAsWorkspace(workspaceId, () => refreshSegment(db, result, budget, spent));
    results.push(result);
  }
  return results;
}

/**
 * Re-evaluates the time-window segments (of one workspace, or all), each workspace within its
 * budget; returns who entered and left each segment this run touched.
 */
export async function refreshSegments(
  db: Db,
  workspaceId: string | null,
  budget: RefreshBudget,
): Promise<RefreshResult[]> {
  const byWorkspace = new Map<string, string[]>();
  for (const segment of await findTimeWindowSegments(db, workspaceId)) {
    byWorkspace.set(segment.workspace_id, [...(byWorkspace.get(segment.workspace_id) ?? []), segment.id]);
  }
  const results: RefreshResult[] = [];
  for (const [id, segmentIds] of byWorkspace)
    results.push(...(await refreshWorkspace(db, id, segmentIds, budget)));
  return results;
}
