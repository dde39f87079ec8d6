// A segment's figures for its list and its page: members now, entries and exits per day over the
// last 30 days (from segment_daily_changes, which the memberships' own triggers keep: sql/0046), the
// rule in words, and where its computation and refresh stand.

import { lastUtcDays } from '../core/days.ts';
import type { Db } from '../db/pool.ts';
import { describeRule } from './describe.ts';
import { findDailyChanges, findRefreshState, type SegmentRow } from './queries.ts';
import { getSegment } from './service.ts';

export const ACTIVITY_DAYS = 30;

export type DayActivity = { date: string; entered: number; exited: number };

/** Per segment, every one of the last ACTIVITY_DAYS days (zeros included), oldest first. */
export async function segmentActivity(
  db: Db,
  workspaceId: string,
  segmentIds: readonly string[],
  now = new Date(),
): Promise<Map<string, DayActivity[]>> {
  const dates = lastUtcDays(ACTIVITY_DAYS, now);
  const rows = segmentIds.length ? await findDailyChanges(db, workspaceId, segmentIds, dates[0]!) : [];
  const found = new Map(rows.map((row) => [`${row.segment_id} ${row.day}`, row]));
  return new Map(
    segmentIds.map((id) => [
      id,
      dates.map((date) => {
        const row = found.get(`${id} ${date}`);
        return { date, entered: row?.entered ?? 0, exited: row?.exited ?? 0 };
      }),
    ]),
  );
}

export async function segmentStatistics(db: Db, workspaceId: string, segmentId: string) {
  return statisticsOf(db, workspaceId, await getSegment(db, workspaceId, segmentId));
}

/**
 * The statistics of a segment already found: its page has it, and finding it again counted its
 * members a second time (185 ms for half a million members, the segment page's largest cost).
 */
export async function statisticsOf(db: Db, workspaceId: string, segment: SegmentRow) {
  const [activity, refresh] = await Promise.all([
    segmentActivity(db, workspaceId, [segment.id]),
    findRefreshState(db, workspaceId, segment.id),
  ]);
  const days = activity.get(segment.id)!;
  return {
    segmentId: segment.id,
    count: segment.count,
    rule: describeRule(segment.rules),
    entered: days.reduce((sum, day) => sum + day.entered, 0),
    exited: days.reduce((sum, day) => sum + day.exited, 0),
    days,
    refresh: {
      status: segment.status,
      computedAt: segment.computed_at,
      timeWindow: refresh?.has_time_window ?? false,
      passInProgress: (refresh?.refresh_cursor ?? null) !== null,
      refreshedThrough: refresh?.refreshed_through ?? null,
    },
  };
}
