// What the worker runs: every feature's job definitions and long-running services.

import { config } from '../config.ts';
import type { AppContext } from '../http/context.ts';
import type { JobDefinition, WorkerService } from '../jobs/definition.ts';
import { campaigns, events, messages, scoring, segments, telegram, tracking, webhooks } from './features.ts';
import { retentionJob } from './retention.ts';

// biome-ignore lint/suspicious/noExplicitAny: each job types its own payload
export function allJobs(): JobDefinition<any>[] {
  return [
    ...events.jobs(),
    ...segments.jobs(),
    ...scoring.jobs(),
    ...messages.jobs(),
    ...campaigns.jobs(),
    ...tracking.jobs(),
    ...telegram.jobs(),
    retentionJob(config()),
  ];
}

export function allWorkerServices(): WorkerService[] {
  return [...webhooks.workerServices];
}

/**
 * Creates every queue (idempotent). Needed before any `send`, in web and worker alike. Finished
 * jobs are deleted by pg-boss after RETENTION_JOBS_DAYS (also on queues made before it was set).
 */
export async function createQueues(context: AppContext): Promise<void> {
  const deleteAfterSeconds = context.config.RETENTION_JOBS_DAYS * 24 * 60 * 60;
  for (const job of allJobs()) {
    await context.boss.createQueue(job.name, { ...job.queue, deleteAfterSeconds });
    await context.boss.updateQueue(job.name, { deleteAfterSeconds });
  }
}
