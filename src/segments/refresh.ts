// The refresh of segments whose rules read the clock (`within`). Time passing alone changes a
// contact's membership only when one of its events leaves a window, so a refresh re-evaluates just
// the contacts with an event that crossed a window's edge since the last one (refreshed_through):
// a few index ranges of events instead of every contact; more crossings than a run's budget are
// taken earliest first, and the next run goes on from where those end. A segment with no such
// date (never refreshed since an upgrade) gets a whole pass, page by page (paging.ts). Both work under a budget of contacts and time per workspace per run,
// so a workspace with a million contacts cannot keep the run from the others; a whole pass the
// budget cuts short resumes where it stopped on the next run (segments.refresh_cursor), before the
// segments refreshed longest ago.
import type { Db } from '../db/pool.ts';
import { runAsWorkspace } from '../db/workspaceShare.ts';
import type { SegmentEffects } from './effects.ts';
import { reevaluateSegments, type SegmentChange } from './evaluate.ts';
import { evaluatePage, planPageAfresh } from './paging.ts';
import {
  findContactsCrossingWindows,
  findTimeWindowSegments,
  lockSegmentForRefresh,
  saveRefreshCursor,
  saveRefreshedThrough,
} from './queries.ts';
import { timeWindows } from './rules.ts';

/**
 * How far back each refresh looks again past the previous one. A transaction evaluates a contact
 * at its start (now()) and may commit a little later, after a refresh that ran in between; an
 * edge crossed in that gap is looked at again by the next refresh. Ten minutes is far beyond any
 * transaction here (statements and idle transactions stop after DATABASE_STATEMENT_TIMEOUT_MS).
 */
const OVERLAP_MS = 10 * 60_000;

export type RefreshResult = { workspaceId: string; segmentId: string; entered: string[]; exited: string[] };

/** Per workspace per run: contacts evaluated (over all its segments) and milliseconds. */
export type RefreshBudget = { rows: number; ms: number; pageSize: number };

/** The database, and what follows a change of membership (campaigns enroll): a context will do. */
export type Refresher = { db: Db; effects: { segments: SegmentEffects } };

type Spent = { rows: number; deadline: number };

const exhausted = (budget: RefreshBudget, spent: Spent) =>
  spent.rows >= budget.rows || Date.now() >= spent.deadline;

/** One page of one segment's pass, under the segment's row lock; null when there is nothing to do. */
async function refreshPage(app: Refresher, workspaceId: string, segmentId: string, pageSize: number) {
  return app.db.transaction(async (tx) => {
    // Locked so an edit in flight finishes first; a segment deleted or being computed is skipped.
    const segment = await lockSegmentForRefresh(tx, workspaceId, segmentId);
    if (segment?.status !== 'ready') return null;
    const page = await evaluatePage(
      tx,
      app.effects.segments,
      workspaceId,
      segment,
      segment.refresh_cursor,
      pageSize,
    );
    await saveRefreshCursor(tx, workspaceId, segmentId, page.next);
    return page;
  });
}

function record(result: RefreshResult, changes: readonly SegmentChange[]) {
  for (const change of changes) {
    (change.change === 'entered' ? result.entered : result.exited).push(change.contactId);
  }
}

type Crossed = { ids: string[]; through: string };

/**
 * The contacts whose events crossed a window's edge since the segment's last refresh, and the
 * time they are evaluated up to: now, or, past the budget, the time before which the earliest
 * crossings the budget allows all fall (the next run goes on from there). 'whole' when a whole
 * pass is needed (or under way) instead: the segment has no date of a last refresh, or the
 * crossings within the overlap alone exceed the budget, so that slicing by time would not advance.
 */
async function findCrossed(db: Db, workspaceId: string, segmentId: string, budget: RefreshBudget) {
  return db.transaction(async (tx): Promise<Crossed | 'whole' | null> => {
    const segment = await lockSegmentForRefresh(tx, workspaceId, segmentId);
    if (segment?.status !== 'ready') return null;
    if (segment.refresh_cursor || !segment.refreshed_through) return 'whole';
    const from = new Date(Date.parse(segment.refreshed_through) - OVERLAP_MS).toISOString();
    const limit = Number.isFinite(budget.rows) ? budget.rows : null;
    const windows = timeWindows(segment.rules);
    const crossed = await findContactsCrossingWindows(
      tx,
      workspaceId,
      windows,
      { from, to: segment.now },
      limit,
    );
    if (Date.parse(crossed.through) <= Date.parse(segment.refreshed_through)) return 'whole';
    return { ids: [...crossed.ids], through: crossed.through };
  });
}

/** Re-evaluates one page of the crossed contacts; the last page records the refresh's date. */
async function refreshCrossedPage(
  app: Refresher,
  result: RefreshResult,
  ids: string[],
  through: string | null,
) {
  return app.db.transaction(async (tx) => {
    const segment = await lockSegmentForRefresh(tx, result.workspaceId, result.segmentId);
    if (segment?.status !== 'ready') return false; // edited meanwhile: its compute job takes over
    await planPageAfresh(tx);
    const changes = await reevaluateSegments(tx, result.workspaceId, [segment], ids);
    await app.effects.segments.membershipChanged(tx, result.workspaceId, changes);
    if (through) await saveRefreshedThrough(tx, result.workspaceId, result.segmentId, through);
    record(result, changes);
    return true;
  });
}

/** The incremental refresh; false when the segment needs a whole pass instead. */
async function refreshCrossed(app: Refresher, result: RefreshResult, budget: RefreshBudget, spent: Spent) {
  const crossed = await findCrossed(app.db, result.workspaceId, result.segmentId, budget);
  if (crossed === 'whole') return false;
  if (!crossed) return true;
  const { through } = crossed;
  const ids = [...crossed.ids];
  for (let start = 0; start === 0 || start < ids.length; start += budget.pageSize) {
    // Cut short, the next run finds these contacts again (refreshed_through has not moved).
    if (start > 0 && exhausted(budget, spent)) return true;
    const page = ids.slice(start, start + budget.pageSize);
    const last = start + budget.pageSize >= ids.length;
    if (!(await refreshCrossedPage(app, result, page, last ? through : null))) return true;
    spent.rows += page.length;
  }
  return true;
}

/** A whole pass over the workspace's contacts, resumed where a previous run stopped. */
async function refreshWhole(
  app: Refresher,
  result: RefreshResult,
  budget: RefreshBudget,
  spent: Spent,
): Promise<void> {
  while (!exhausted(budget, spent)) {
    const page = await refreshPage(app, result.workspaceId, result.segmentId, budget.pageSize);
    if (!page) return;
    spent.rows += page.rows;
    record(result, page.changes);
    if (!page.next) return;
  }
}

async function refreshSegment(app: Refresher, result: RefreshResult, budget: RefreshBudget, spent: Spent) {
  if (!(await refreshCrossed(app, result, budget, spent))) await refreshWhole(app, result, budget, spent);
}

async function refreshWorkspace(
  app: Refresher,
  workspaceId: string,
  segmentIds: string[],
  budget: RefreshBudget,
) {
  const spent: Spent = { rows: 0, deadline: Date.now() + budget.ms };
  const results: RefreshResult[] = [];
  for (const segmentId of segmentIds) {
    if (exhausted(budget, spent)) break;
    const result: RefreshResult = { workspaceId, segmentId, entered: [], exited: [] };
    await runAsWorkspace(workspaceId, () => refreshSegment(app, result, budget, spent));
    results.push(result);
  }
  return results;
}

/**
 * Re-evaluates the time-window segments (of one workspace, or all), each workspace within its
 * budget; returns who entered and left each segment this run touched.
 */
export async function refreshSegments(
  app: Refresher,
  workspaceId: string | null,
  budget: RefreshBudget,
): Promise<RefreshResult[]> {
  const byWorkspace = new Map<string, string[]>();
  for (const segment of await findTimeWindowSegments(app.db, workspaceId)) {
    byWorkspace.set(segment.workspace_id, [...(byWorkspace.get(segment.workspace_id) ?? []), segment.id]);
  }
  const results: RefreshResult[] = [];
  for (const [id, segmentIds] of byWorkspace)
    results.push(...(await refreshWorkspace(app, id, segmentIds, budget)));
  return results;
}
