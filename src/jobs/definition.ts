// What a feature hands the worker: job definitions (pg-boss queues, optionally on a schedule) and
// long-running services (e.g. the webhook dispatcher). The composition layer (src/app/jobs.ts)
// collects every feature's and registers them.
import type { Job, Queue, WorkOptions } from 'pg-boss';
import type { AppContext } from '../core/context.ts';

export type JobDefinition<T = unknown> = {
  /** Queue name, `feature.action`. */
  name: string;
  /**
   * `notify: true` wakes the worker when a job is queued, so an idle worker polls the queue only
   * at pg-boss's backstop (30 s, or `work.notifyPollingIntervalSeconds`) instead of every 2 s. Every
   * queue whose jobs are all due when queued takes it, scheduled ones included (the schedule's job
   * is queued with a NOTIFY). A queue with jobs queued for later (`startAfter`: retries, paced
   * sends, waits) is woken by nothing when they come due: its poll interval bounds their delay.
   */
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
