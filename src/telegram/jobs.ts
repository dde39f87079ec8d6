// The worker's telegram jobs: `telegram.update` processes one stored update (process.ts; safe to
// run twice), `telegram.prune` drops processed updates after a week (Telegram stops redelivering
// long before) and expired link tokens.
import { z } from 'zod';
import type { AppContext } from '../core/context.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { processUpdate, type UpdateJob } from './process.ts';
import { pruneTelegramRows } from './queries.ts';
import { UPDATE_QUEUE } from './receive.ts';

const UPDATE_RETENTION_MS = 7 * 24 * 3600 * 1000;

const UpdatePayload = z.object({ workspaceId: z.string(), botId: z.number(), updateId: z.number() });

export const processUpdateJob: JobDefinition<UpdateJob> = {
  name: UPDATE_QUEUE,
  queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 300, notify: true },
  work: { batchSize: 10, burstWhenBatchFull: true },
  handler: async (context: AppContext, jobs) => {
    // In turn: two updates of one chat in a batch are applied in the order Telegram sent them.
    for (const job of jobs) await processUpdate(context, UpdatePayload.parse(job.data));
  },
};

export const pruneTelegramJob: JobDefinition = {
  name: 'telegram.prune',
  queue: { retryLimit: 0, expireInSeconds: 300, notify: true },
  schedule: { cron: '17 * * * *' },
  handler: async (context: AppContext) => {
    await pruneTelegramRows(context.db, new Date(Date.now() - UPDATE_RETENTION_MS));
  },
};

export function telegramJobs(): JobDefinition[] {
  return [processUpdateJob as JobDefinition, pruneTelegramJob];
}
