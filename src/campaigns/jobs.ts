// The campaign engine's worker jobs: a step of an enrollment, a page of a broadcast, the check
// that stamps a broadcast finished, and the count of a large broadcast's audience.
import type { Config } from '../config.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { audienceJob } from './audienceStore.ts';
import { broadcastJob } from './broadcast.ts';
import { broadcastFinishJob, broadcastFinishSweepJob } from './broadcastFinish.ts';
import { stepJob } from './stepBatch.ts';

// biome-ignore lint/suspicious/noExplicitAny: each job types its own payload
export function campaignJobs(settings: Config): JobDefinition<any>[] {
  // A job a killed worker held is retried once it expires: steps are short, so the wait is too.
  const expireInSeconds = Math.ceil(settings.CAMPAIGN_STEP_EXPIRE_MS / 1000);
  const engine = [stepJob, broadcastJob, broadcastFinishJob, broadcastFinishSweepJob].map((job) => ({
    ...job,
    queue: { ...job.queue, expireInSeconds },
  }));
  // A count of a million members runs longer than a step: it keeps its own expiry.
  return [...engine, audienceJob];
}
