// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { trackingJobs } from './jobs.ts';
import { installTrackingPages } from './pages.ts';
import { trackingRetention } from './retention.ts';
import { trackingRoutes } from './routes.ts';

export const feature: Feature = {
  name: 'tracking',
  routes: trackingRoutes,
  pages: installTrackingPages,
  jobs: trackingJobs,
  retention: trackingRetention,
};
