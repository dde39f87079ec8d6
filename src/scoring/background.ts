// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// its jobs and retention. Its feature.ts adds the routes and pages; nothing else imports this
// module.
import type { FeatureBackground } from '../feature/definition.ts';
import { scoringJobs } from './jobs.ts';
import { scoringRetention } from './retention.ts';

export const background: FeatureBackground = {
  name: 'scoring',
  jobs: scoringJobs,
  retention: scoringRetention,
};
