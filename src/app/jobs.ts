// What the worker runs: every feature's job definitions and long-running services.

import type { AppContext } from '../http/context.ts';
import type { JobDefinition, WorkerService } from '../jobs/definition.ts';
import { campaigns, events, messages, scoring, segments, telegram, tracking, webhooks } from './features.ts';

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
  ];
}

export function allWorkerServices(): WorkerService[] {
  return [...webhooks.workerServices];
}

/** Creates every queue (idempotent). Needed before any `send`, in web and worker alike. */
export async function createQueues(context: AppContext): Promise<void> {
  for (const job of allJobs()) await context.boss.createQueue(job.name, job.queue ?? {});
}
