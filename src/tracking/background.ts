// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// its jobs (classifying hits) and retention. Its feature.ts adds the routes and pages; nothing else
// imports this module.
import type { FeatureBackground } from '../feature/definition.ts';
import { trackingJobs } from './jobs.ts';
import { trackingRetention } from './retention.ts';

export const background: FeatureBackground = {
  name: 'tracking',
  jobs: trackingJobs,
  retention: trackingRetention,
};
