// Fixed-window request limits for the public endpoints, counted in PostgreSQL so that they hold
// across web processes. One statement per bucket; old windows are pruned now and then.
import type { Config } from '../config.ts';
import { RateLimitedError } from '../core/errors.ts';
import type { Db } from '../db/pool.ts';
import { countRequest, pruneRequestCounts } from './queries.ts';

/** Counts a request against `bucket`; 429 with Retry-After once the window holds more than `limit`. */
export async function limitRequests(
  db: Db,
  settings: Config,
  bucket: string,
  limit: number,
  what: string,
): Promise<void> {
  const windowSeconds = Math.ceil(settings.PUBLIC_RATE_WINDOW_MS / 1000);
  const { hits, retry_after } = await countRequest(db, bucket, windowSeconds);
  if (Math.random() < 0.01) await pruneRequestCounts(db, windowSeconds * 2);
  if (hits > limit) {
    throw new RateLimitedError(
      retry_after,
      `Too many requests ${what} (at most ${limit} per ${windowSeconds} s); retry after Retry-After.`,
    );
  }
}
