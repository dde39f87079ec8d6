// How a workspace's lead scores are spread: a histogram of about twenty buckets of a round width
// (1, 2 or 5 times a power of ten) over the scores that occur, for the scoring page's chart. One
// pass over the workspace's contacts, grouped by score (scores are sums of rule points: few distinct
// values), bucketed here.
import type { Db } from '../db/pool.ts';
import { countScores } from './queries.ts';

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

export async function scoreDistribution(db: Db, workspaceId: string) {
  const counts = await countScores(db, workspaceId);
  const total = counts.reduce((sum, row) => sum + row.count, 0);
  const scores = counts.map((row) => row.score);
  return {
    total,
    zero: counts.find((row) => row.score === 0)?.count ?? 0,
    min: scores.length ? Math.min(...scores) : null,
    max: scores.length ? Math.max(...scores) : null,
    buckets: histogram(counts),
  };
}
