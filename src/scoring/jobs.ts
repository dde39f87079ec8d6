// The scheduled decay of lead scores. Every minute it looks for workspaces whose period is due;
// workspaces without decay cost nothing.
import type { AppContext } from '../core/context.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { runDecay } from './decay.ts';
import { recountStaleDistributions } from './distribution.ts';

export const DECAY_QUEUE = 'scoring.decay';

export const decayJob: JobDefinition<Record<string, never>> = {
  name: DECAY_QUEUE,
  queue: { retryLimit: 0, expireInSeconds: 3_600, notify: true },
  schedule: { cron: '* * * * *' },
  handler: async (context: AppContext) => {
    const results = await runDecay(context);
    if (results.length) context.log.info({ workspaces: results.length }, 'lead scores decayed');
  },
};

export const DISTRIBUTIONS_QUEUE = 'scoring.distributions';

/** Large workspaces' score distributions, counted again while someone reads them (distribution.ts). */
export const distributionsJob: JobDefinition<Record<string, never>> = {
  name: DISTRIBUTIONS_QUEUE,
  queue: { retryLimit: 0, expireInSeconds: 3_600, notify: true },
  schedule: { cron: '* * * * *' },
  handler: async (context: AppContext) => {
    const recounted = await recountStaleDistributions(context.db);
    if (recounted) context.log.info({ workspaces: recounted }, 'score distributions recounted');
  },
};

export function scoringJobs() {
  return [decayJob, distributionsJob];
}
