// What a feature hands the worker: job definitions (pg-boss queues, optionally on a schedule) and
// long-running services (e.g. the webhook dispatcher). The composition layer (src/app/jobs.ts)
// collects every feature's and registers them.
import type { Job, Queue, WorkOptions } from 'pg-boss';
import type { AppContext } from '../core/context.ts';

export type JobDefinition<T = unknown> = {
  /** Queue name, `feature.action`. */
  name: string;
  queue?: Omit<Queue, 'name'>;
  work?: WorkOptions;
  /** Cron expression and payload for periodic work. */
  schedule?: { cron: string; data?: object };
  handler: (context: AppContext, jobs: Job<T>[]) => Promise<void>;
};

export type WorkerService = {
  name: string;
  start: (context: AppContext) => Promise<{ stop: () => Promise<void> }>;
};
