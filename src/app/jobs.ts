// What the worker runs: every feature's job definitions and long-running services.

import type { Config } from '../config.ts';
import type { AppContext } from '../core/context.ts';
import type { JobDefinition, WorkerService } from '../jobs/definition.ts';
import { campaigns, events, messages, scoring, segments, telegram, tracking, webhooks } from './features.ts';
import { retentionJob } from './retention.ts';

// biome-ignore lint/suspicious/noExplicitAny: each job types its own payload
export function allJobs(settings: Config): JobDefinition<any>[] {
  return [
    ...events.jobs(),
    ...segments.jobs(settings),
    ...scoring.jobs(),
    ...messages.jobs(settings),
    ...campaigns.jobs(settings),
    ...tracking.jobs(),
    ...telegram.jobs(),
    retentionJob(settings),
  ];
}

export function allWorkerServices(): WorkerService[] {
  return [...webhooks.workerServices];
}

/**
 * Creates every queue (idempotent). Needed before any `send`, in web and worker alike. Finished
 * jobs are deleted by pg-boss after RETENTION_JOBS_MS (also on queues made before it was set).
 */
export async function createQueues(context: AppContext): Promise<void> {
  const deleteAfterSeconds = Math.ceil(context.config.RETENTION_JOBS_MS / 1000);
  for (const job of allJobs(context.config)) {
    await context.boss.createQueue(job.name, { ...job.queue, deleteAfterSeconds });
    await context.boss.updateQueue(job.name, { deleteAfterSeconds });
  }
}
