// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// the partitions job, retention by whole monthly partitions, and the partitions made after
// migrating. Its feature.ts adds the routes and pages; nothing else imports this module.
import type { FeatureBackground } from '../feature/definition.ts';
import {
  EVENT_RETENTION_RULE,
  ensureEventPartitions,
  eventPartitionsJob,
  pruneExpiredEvents,
} from './partitions.ts';
import { eventRetention } from './retention.ts';

export const background: FeatureBackground = {
  name: 'events',
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
