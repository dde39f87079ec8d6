// How a workspace's lead scores are spread: a histogram of about twenty buckets of a round width
// (1, 2 or 5 times a power of ten) over the scores that occur, for the scoring page's chart. One
// pass over the workspace's contacts, grouped by score (scores are sums of rule points: few distinct
// values), bucketed here.
//
// That pass reads every contact: 0.4 s alone at a million, 1.9 s p95 with four readers. So a workspace
// of up to LIVE_COUNT_LIMIT contacts is counted at every request (exact, as of now), and a larger
// one is served its last count with the time it was taken (countedAt), recounted in the background
// every SNAPSHOT_MAX_AGE_MS while someone reads it (the scoring.distributions job). Never a number
// presented as current that is not.
import type { Db } from '../db/pool.ts';
import { countScores, findStaleScoreSnapshots, readScoreSnapshot, saveScoreSnapshot } from './queries.ts';

/** Up to this many contacts the distribution is counted live (tens of milliseconds at most). */
export const LIVE_COUNT_LIMIT = 100_000;
/** A larger workspace's stored count is taken again once it is this old. */
export const SNAPSHOT_MAX_AGE_MS = 5 * 60_000;

const TARGET_BUCKETS = 20;

/** The smallest round width (1, 2, 5 × 10^k) that covers `span` in at most TARGET_BUCKETS buckets. */
export function bucketWidth(span: number): number {
  const raw = Math.max(1, Math.ceil(span / TARGET_BUCKETS));
  for (let power = 1; ; power *= 10) {
    for (const step of [1, 2, 5]) if (step * power >= raw) return step * power;
  }
}

export type Bucket = { from: number; to: number; count: number };

/** Buckets of whole scores, `from` and `to` both included, covering min to max without gaps. */
export function histogram(counts: readonly { score: number; count: number }[]): Bucket[] {
  if (counts.length === 0) return [];
  const min = Math.min(...counts.map((row) => row.score));
  const max = Math.max(...counts.map((row) => row.score));
  const width = bucketWidth(max - min + 1);
  const start = Math.floor(min / width) * width;
  const buckets: Bucket[] = [];
  for (let from = start; from <= max; from += width) buckets.push({ from, to: from + width - 1, count: 0 });
  for (const row of counts) buckets[Math.floor((row.score - start) / width)]!.count += row.count;
  return buckets;
}

type ScoreCounts = readonly { score: number; count: number }[];

function present(counts: ScoreCounts, countedAt: string) {
  const total = counts.reduce((sum, row) => sum + row.count, 0);
  const scores = counts.map((row) => row.score);
  return {
    countedAt,
    total,
    zero: counts.find((row) => row.score === 0)?.count ?? 0,
    min: scores.length ? Math.min(...scores) : null,
    max: scores.length ? Math.max(...scores) : null,
    buckets: histogram(counts),
  };
}

/**
 * The distribution: counted now for a workspace of up to `liveLimit` contacts, else the stored
 * count and its time. A workspace counted live that turns out larger stores its count, so that the
 * next request is served the snapshot; one counted live while a snapshot exists keeps it current.
 */
export async function scoreDistribution(db: Db, workspaceId: string, liveLimit = LIVE_COUNT_LIMIT) {
  const snapshot = await readScoreSnapshot(db, workspaceId);
  if (snapshot && snapshot.total > liveLimit) return present(snapshot.counts, snapshot.counted_at);
  const countedAt = new Date().toISOString();
  const counts = await countScores(db, workspaceId);
  const total = counts.reduce((sum, row) => sum + row.count, 0);
  if (!snapshot && total <= liveLimit) return present(counts, countedAt);
  return present(counts, (await saveScoreSnapshot(db, workspaceId, counts, countedAt)).counted_at);
}

/** Counts again the stored distributions older than `maxAgeMs` that someone read lately. */
export async function recountStaleDistributions(db: Db, maxAgeMs = SNAPSHOT_MAX_AGE_MS) {
  const workspaces = await findStaleScoreSnapshots(db, maxAgeMs);
  for (const workspaceId of workspaces) {
    // One transaction: the stored time is that of the snapshot the contacts were counted in.
    await db.transaction(async (tx) =>
      saveScoreSnapshot(tx, workspaceId, await countScores(tx, workspaceId)),
    );
  }
  return workspaces.length;
}
