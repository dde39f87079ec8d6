// The worker's tracking job: `tracking.classify` classifies settled hits and applies the human
// ones (process.ts). The web process queues one after storing hits (at most one a second per
// process); the queue keeps at most one waiting and one running (stately), a run that leaves hits
// behind queues the next, and a run each minute covers a web process that died before queueing.
import type { AppContext } from '../core/context.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { SETTLE_MS } from './classify.ts';
import { processSettledHits } from './process.ts';
import { hasUnclassifiedHits } from './queries.ts';

export const CLASSIFY_QUEUE = 'tracking.classify';
/** Whole seconds, as pg-boss takes them: enough for the hits stored now to have settled. */
const SETTLE_SECONDS = Math.ceil(SETTLE_MS / 1000);

export async function queueClassification(app: Pick<AppContext, 'boss'>, startAfter = SETTLE_SECONDS) {
  await app.boss.send(CLASSIFY_QUEUE, {}, { startAfter });
}

export const classifyHitsJob: JobDefinition = {
  name: CLASSIFY_QUEUE,
  queue: { policy: 'stately', retryLimit: 5, retryDelay: 2, expireInSeconds: 300 },
  work: { pollingIntervalSeconds: 1 },
  schedule: { cron: '* * * * *' },
  handler: async (context: AppContext) => {
    await processSettledHits(context);
    // Hits that arrived during the run settle later: the next run is queued for them.
    if (await hasUnclassifiedHits(context.db)) await queueClassification(context);
  },
};

export function trackingJobs(): JobDefinition[] {
  return [classifyHitsJob];
}
