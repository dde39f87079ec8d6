// What the worker runs: every feature's job definitions (foundations first) and long-running
// services, plus the composition layer's retention (retention.ts) and counter folding (counters.ts).
import type { Config } from '../config.ts';
import type { AppContext } from '../core/context.ts';
import type { JobDefinition, WorkerService } from '../jobs/definition.ts';
import { foldCountersJob } from './counters.ts';
import { FEATURES, foundationsFirst } from './features.ts';
import { retentionJob } from './retention.ts';

// biome-ignore lint/suspicious/noExplicitAny: each job types its own payload
export function allJobs(settings: Config): JobDefinition<any>[] {
  return [
    ...foundationsFirst(FEATURES).flatMap((feature) => feature.jobs?.(settings) ?? []),
    retentionJob(settings),
    foldCountersJob,
  ];
}

export function allWorkerServices(): WorkerService[] {
  return foundationsFirst(FEATURES).flatMap((feature) => feature.workerServices ?? []);
}

/**
 * Creates every queue (idempotent). Needed before any `send`, in web and worker alike. Finished
 * jobs are deleted by pg-boss after RETENTION_JOBS_MS, and NOTIFY follows the definition, also on
 * queues made before either was set (createQueue leaves an existing queue as it is).
 */
export async function createQueues(context: AppContext): Promise<void> {
  const deleteAfterSeconds = Math.ceil(context.config.RETENTION_JOBS_MS / 1000);
  for (const job of allJobs(context.config)) {
    await context.boss.createQueue(job.name, { ...job.queue, deleteAfterSeconds });
    await context.boss.updateQueue(job.name, { deleteAfterSeconds, notify: job.queue?.notify ?? false });
  }
}
