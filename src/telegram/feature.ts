// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { telegramJobs } from './jobs.ts';
import { telegramRoutes } from './routes.ts';

export const routes = telegramRoutes;
export const jobs = telegramJobs;
export { telegramRetention as retention } from './retention.ts';
