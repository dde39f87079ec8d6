// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// its jobs, retention and the rule cost limits. Its feature.ts adds the routes and pages; nothing
// else imports this module.
import type { FeatureBackground } from '../feature/definition.ts';
import { segmentCounters } from './counters.ts';
import { segmentJobs } from './jobs.ts';
import { segmentRetention } from './retention.ts';
import { useRuleCostLimits } from './ruleCost.ts';

export const background: FeatureBackground = {
  name: 'segments',
  jobs: segmentJobs,
  counters: segmentCounters,
  configure: useRuleCostLimits,
  retention: segmentRetention,
};
