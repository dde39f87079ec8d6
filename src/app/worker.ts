// The worker: every feature's jobs worked (and scheduled), every worker service started.

import type { AppContext } from '../core/context.ts';
import type { Stoppable } from '../db/resolve.ts';
import { allJobs, allWorkerServices } from './jobs.ts';

export async function startWorker(context: AppContext): Promise<Stoppable> {
  for (const job of allJobs(context.config)) {
    await context.boss.work(job.name, job.work ?? {}, (jobs) => job.handler(context, jobs));
    if (job.schedule) await context.boss.schedule(job.name, job.schedule.cron, job.schedule.data ?? {});
  }
  const services: Stoppable[] = [];
  for (const service of allWorkerServices()) services.push(await service.start(context));
  return {
    stop: async () => {
      await Promise.all(services.map((service) => service.stop()));
      for (const job of allJobs(context.config)) await context.boss.offWork(job.name, { wait: true });
    },
  };
}
