// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import {
  EVENT_RETENTION_RULE,
  ensureEventPartitions,
  eventPartitionsJob,
  pruneExpiredEvents,
} from './partitions.ts';
import { eventRetention } from './retention.ts';
import { eventRoutes } from './routes.ts';

export const feature: Feature = {
  name: 'events',
  routes: eventRoutes,
  jobs: () => [eventPartitionsJob],
  retention: eventRetention,
  // Events go by whole monthly partitions, not by batched deletes.
  pruners: [
    {
      table: 'events',
      rule: EVENT_RETENTION_RULE,
      prune: (db, config, dryRun) => pruneExpiredEvents(db, config, dryRun),
    },
  ],
  afterMigrate: (db, config) => ensureEventPartitions(db, config.EVENT_PARTITIONS_AHEAD_MONTHS),
};

export { timelinePanel } from './console.ts';
