// What every request handler and job can reach: the pool, configuration, logger and queue.
import type { DatabasePool } from 'slonik';
import type { Config } from '../config.ts';
import type { Boss } from '../jobs/boss.ts';
import type { Logger } from '../log.ts';

export type AppContext = {
  db: DatabasePool;
  config: Config;
  log: Logger;
  /** The job queue; web processes use it to enqueue, workers also to work. */
  boss: Boss;
  version: string;
  databaseUrl: string;
};
