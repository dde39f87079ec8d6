// The worker's message jobs: `messages.send` delivers its message (a batch of jobs at once; safe to
// run twice: the claim decides), `messages.send-paced` one whose channel's rate gave it a later
// send slot (sendRate.ts), and `messages.sweep` marks sends interrupted by a killed worker as failed and drops
// idempotency keys past their 7 days.
import { z } from 'zod';
import type { AppContext } from '../http/context.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { emit } from '../outbox/emit.ts';
import { deliverMessage, deliverMessages } from './deliver.ts';
import { SEND_QUEUE } from './outcomes.ts';
import { failExpiredLeases, insertMessageEvent, pruneMessageIdempotencyKeys } from './queries.ts';
import { pacedSendJob } from './sendRate.ts';

export const SWEEP_QUEUE = 'messages.sweep';
const SWEEP_BATCH = 500;

const SendPayload = z.object({ messageId: z.string() });

export const sendMessageJob: JobDefinition<z.infer<typeof SendPayload>> = {
  name: SEND_QUEUE,
  // A handler that throws after its claim leaves the row to the sweep, so a pg-boss retry only
  // finds it claimed and sends nothing: retries cover failures before the claim.
  queue: { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3_600, notify: true },
  // A retry's job is delayed (startAfter), and no NOTIFY announces it when it comes due: with
  // notify on, pg-boss's backstop poll is 30 s, so the queue polls every 2 s as without notify.
  // A broadcast queues thousands at once: they are claimed, read, sent and recorded in batches
  // (deliverMessages), and two batches overlap so the pooled connections never wait for the database.
  work: { batchSize: 50, burstWhenBatchFull: true, localConcurrency: 4, notifyPollingIntervalSeconds: 2 },
  handler: async (context: AppContext, jobs) => {
    await deliverMessages(
      context,
      jobs.map((job) => SendPayload.parse(job.data).messageId),
    );
  },
};

/** Fails every claim whose lease passed with no outcome; returns how many. */
export async function sweepInterruptedSends(app: Pick<AppContext, 'db'>): Promise<number> {
  let total = 0;
  for (;;) {
    const swept = await app.db.transaction(async (tx) => {
      const rows = await failExpiredLeases(tx, SWEEP_BATCH);
      for (const row of rows) {
        await insertMessageEvent(tx, row, 'failed', { error: 'interrupted', attempt: row.attempts });
        await emit(tx, {
          workspaceId: row.workspace_id,
          type: 'message.failed',
          data: { messageId: row.id, contactId: row.contact_id, error: 'interrupted' },
        });
      }
      return rows.length;
    });
    total += swept;
    if (swept < SWEEP_BATCH) return total;
  }
}

export const sweepMessagesJob: JobDefinition = {
  name: SWEEP_QUEUE,
  queue: { retryLimit: 0, expireInSeconds: 300 },
  schedule: { cron: '* * * * *' },
  handler: async (context: AppContext) => {
    await sweepInterruptedSends(context);
    await pruneMessageIdempotencyKeys(context.db);
  },
};

export function messageJobs(): JobDefinition[] {
  return [sendMessageJob as JobDefinition, pacedSendJob(deliverMessage) as JobDefinition, sweepMessagesJob];
}
