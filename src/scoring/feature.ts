// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { scoringJobs } from './jobs.ts';
import { scoringRoutes } from './routes.ts';

export const routes = scoringRoutes;
export const jobs = scoringJobs;
export { scoringRetention as retention } from './retention.ts';
