// Background segment work: computing a new or edited segment over a large workspace, and the
// scheduled refresh of segments whose rules read the clock (`within`).
import { z } from 'zod';
import { config } from '../config.ts';
import type { Db } from '../db/pool.ts';
import type { AppContext } from '../http/context.ts';
import type { JobDefinition } from '../jobs/registry.ts';
import { findTimeWindowSegments, lockSegment, markSegmentReady } from './queries.ts';
import { COMPUTE_QUEUE, computeNow } from './service.ts';

export const REFRESH_QUEUE = 'segments.refresh';

const ComputePayload = z.object({ workspaceId: z.string(), segmentId: z.string(), version: z.string() });

/** Computes the segment unless it was deleted or edited since (a newer job then has the work). */
export async function computeQueuedSegment(db: Db, payload: z.infer<typeof ComputePayload>) {
  await db.transaction(async (tx) => {
    const segment = await lockSegment(tx, payload.workspaceId, payload.segmentId);
    if (!segment || segment.updated_at !== payload.version) return;
    await computeNow(tx, payload.workspaceId, segment);
    await markSegmentReady(tx, payload.workspaceId, segment.id, payload.version);
  });
}

export type RefreshResult = { workspaceId: string; segmentId: string; entered: string[]; exited: string[] };

/** Re-evaluates every time-window segment (of one workspace, or all), each in its own transaction. */
export async function refreshSegments(db: Db, workspaceId: string | null): Promise<RefreshResult[]> {
  const results: RefreshResult[] = [];
  for (const segment of await findTimeWindowSegments(db, workspaceId)) {
    const changes = await db.transaction(async (tx) => {
      // Locked so an edit in flight finishes first; a segment deleted meanwhile is skipped.
      const current = await lockSegment(tx, segment.workspace_id, segment.id);
      return current ? computeNow(tx, segment.workspace_id, current) : [];
    });
    const ids = (kind: string) =>
      changes.filter((change) => change.change === kind).map((change) => change.contactId);
    results.push({
      workspaceId: segment.workspace_id,
      segmentId: segment.id,
      entered: ids('entered'),
      exited: ids('exited'),
    });
  }
  return results;
}

export const computeSegmentJob: JobDefinition<z.infer<typeof ComputePayload>> = {
  name: COMPUTE_QUEUE,
  queue: { retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 3_600 },
  handler: async (context: AppContext, jobs) => {
    for (const job of jobs) await computeQueuedSegment(context.db, ComputePayload.parse(job.data));
  },
};

export function refreshSegmentsJob(cron: string): JobDefinition<Record<string, never>> {
  return {
    name: REFRESH_QUEUE,
    // No retries: the next scheduled run does the same work. Overlapping runs are harmless, as
    // each segment is recomputed under its row lock and the diff is idempotent.
    queue: { retryLimit: 0, expireInSeconds: 3_600 },
    schedule: { cron },
    handler: async (context: AppContext) => {
      const results = await refreshSegments(context.db, null);
      const moved = results.filter((result) => result.entered.length || result.exited.length);
      if (moved.length) context.log.info({ segments: moved.length }, 'segments refreshed');
    },
  };
}

/** The segment jobs for the worker; the refresh runs on SEGMENT_REFRESH_CRON (every minute by default). */
export function segmentJobs() {
  return [computeSegmentJob, refreshSegmentsJob(config().SEGMENT_REFRESH_CRON)];
}
