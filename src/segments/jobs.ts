// Background segment work: computing a new or edited segment page by page, and the scheduled
// refresh of segments whose rules read the clock (`within`, refresh.ts).
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { AppContext } from '../core/context.ts';
import { runAsWorkspace } from '../db/workspaceShare.ts';
import { transactionalDb } from '../jobs/boss.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { evaluatePage } from './paging.ts';
import { ContactCursor, lockSegment, markSegmentReady } from './queries.ts';
import { type RefreshBudget, refreshSegments } from './refresh.ts';
import { COMPUTE_QUEUE } from './service.ts';

export { type RefreshResult, refreshSegments } from './refresh.ts';
export const REFRESH_QUEUE = 'segments.refresh';

const ComputePayload = z.object({
  workspaceId: z.string(),
  segmentId: z.string(),
  version: z.string(),
  /** Where this page starts; null for the first. */
  after: ContactCursor.nullable().default(null),
});
type ComputePayload = z.infer<typeof ComputePayload>;

type Services = Pick<AppContext, 'db' | 'boss' | 'config' | 'effects'>;

/**
 * Computes one page of the segment and enqueues the next in the same transaction, or marks the
 * segment ready after the last. Stale work (the segment deleted or edited since: a newer job has
 * it) is dropped. Each page is its own job, so other workspaces' pages run in between.
 */
export async function computeSegmentPage(app: Services, payload: ComputePayload) {
  await app.db.transaction(async (tx) => {
    const segment = await lockSegment(tx, payload.workspaceId, payload.segmentId, 'no key update');
    if (!segment || segment.updated_at !== payload.version) return;
    const pageSize = app.config.SEGMENT_COMPUTE_PAGE_SIZE;
    const page = await evaluatePage(
      tx,
      app.effects.segments,
      payload.workspaceId,
      segment,
      payload.after,
      pageSize,
    );
    if (!page.next) return markSegmentReady(tx, payload.workspaceId, segment.id, payload.version);
    await app.boss.send(COMPUTE_QUEUE, { ...payload, after: page.next }, { db: transactionalDb(tx) });
  });
}

export const computeSegmentJob: JobDefinition<ComputePayload> = {
  name: COMPUTE_QUEUE,
  // notify: the worker wakes for a new page at once instead of at its next poll (seconds).
  queue: { retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 3_600, notify: true },
  // After each fetch pg-boss waits for its next poll; a backlog of pages (many segments saved at
  // once) is fetched continuously instead, ten pages a fetch, still one page at a time.
  work: { batchSize: 10, burstWhenBatchFull: true },
  handler: async (context: AppContext, jobs) => {
    for (const job of jobs) {
      const payload = ComputePayload.parse(job.data);
      await runAsWorkspace(payload.workspaceId, () => computeSegmentPage(context, payload));
    }
  },
};

/** The scheduled refresh's budget per workspace per run. */
export function refreshBudget(settings: Config): RefreshBudget {
  return {
    rows: settings.SEGMENT_REFRESH_ROWS_PER_WORKSPACE,
    ms: settings.SEGMENT_REFRESH_MS_PER_WORKSPACE,
    pageSize: settings.SEGMENT_COMPUTE_PAGE_SIZE,
  };
}

export function refreshSegmentsJob(cron: string): JobDefinition<Record<string, never>> {
  return {
    name: REFRESH_QUEUE,
    // No retries: the next scheduled run does the same work. Overlapping runs are harmless, as
    // each page is evaluated under the segment's row lock and the diff is idempotent.
    queue: { retryLimit: 0, expireInSeconds: 3_600, notify: true },
    schedule: { cron },
    handler: async (context: AppContext) => {
      const results = await refreshSegments(context, null, refreshBudget(context.config));
      const moved = results.filter((result) => result.entered.length || result.exited.length);
      if (moved.length) context.log.info({ segments: moved.length }, 'segments refreshed');
    },
  };
}

/** The segment jobs for the worker; the refresh runs on SEGMENT_REFRESH_CRON (every minute by default). */
export function segmentJobs(settings: Config) {
  return [computeSegmentJob, refreshSegmentsJob(settings.SEGMENT_REFRESH_CRON)];
}
