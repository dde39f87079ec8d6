// What the worker runs. A feature exports job definitions (pg-boss queues, optionally on a
// schedule) and/or long-running services (e.g. the webhook dispatcher); each is listed here.
import type { Job, Queue, WorkOptions } from 'pg-boss';
import { campaignJobs } from '../campaigns/jobs.ts';
import type { AppContext } from '../http/context.ts';
import { messageJobs } from '../messages/jobs.ts';
import { scoringJobs } from '../scoring/jobs.ts';
import { segmentJobs } from '../segments/jobs.ts';
import { webhookDispatcher } from '../webhooks/dispatcher.ts';

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

// biome-ignore lint/suspicious/noExplicitAny: each job types its own payload
export function allJobs(): JobDefinition<any>[] {
  return [...segmentJobs(), ...scoringJobs(), ...messageJobs(), ...campaignJobs()];
}

export function allWorkerServices(): WorkerService[] {
  return [webhookDispatcher];
}

/** Creates every queue (idempotent). Needed before any `send`, in web and worker alike. */
export async function createQueues(context: AppContext): Promise<void> {
  for (const job of allJobs()) await context.boss.createQueue(job.name, job.queue ?? {});
}
