// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { eventPartitionsJob } from './partitions.ts';
import { eventRoutes } from './routes.ts';

export const routes = eventRoutes;
export const jobs = () => [eventPartitionsJob];
export { EVENT_RETENTION_RULE, ensureEventPartitions, pruneExpiredEvents } from './partitions.ts';
export { eventRetention as retention } from './retention.ts';
