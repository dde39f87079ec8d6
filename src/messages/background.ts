// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// its jobs (sending) and retention. Its feature.ts adds the routes and pages; nothing else imports
// this module.
import type { FeatureBackground } from '../feature/definition.ts';
import { messageJobs } from './jobs.ts';
import { messageRetention } from './retention.ts';

export const background: FeatureBackground = {
  name: 'messages',
  jobs: messageJobs,
  retention: messageRetention,
};
