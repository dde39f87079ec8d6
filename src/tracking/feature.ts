// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { trackingJobs } from './jobs.ts';
import { trackingRoutes } from './routes.ts';

export { installTrackingPages as pages } from './pages.ts';

export const routes = trackingRoutes;
export const jobs = trackingJobs;
export { trackingRetention as retention } from './retention.ts';
