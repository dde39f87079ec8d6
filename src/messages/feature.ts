// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { messageJobs } from './jobs.ts';
import { messageRoutes } from './routes.ts';

export { installUnsubscribePages as pages } from './unsubscribePages.ts';

export const routes = messageRoutes;
export const jobs = messageJobs;
export { messageRetention as retention } from './retention.ts';
