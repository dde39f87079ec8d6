// The worker's message jobs: `messages.send` delivers its message (a batch of jobs at once; safe to
// run twice: the claim decides), `messages.send-paced` one whose channel's rate gave it a later
// send slot (sendRate.ts), and `messages.sweep` marks sends interrupted by a killed worker as failed and drops
// idempotency keys past their 7 days.
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { AppContext } from '../core/context.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { emit } from '../outbox/emit.ts';
import { failExpiredLeases } from './claimQueries.ts';
import { deliverMessage, deliverMessages } from './deliver.ts';
import { pruneMessageIdempotencyKeys } from './idempotencyQueries.ts';
import { SEND_QUEUE } from './outcomes.ts';
import { pacedSendJob } from './sendRate.ts';
import { insertMessageEvent } from './timelineQueries.ts';

export const SWEEP_QUEUE = 'messages.sweep';
const SWEEP_BATCH = 500;

/** One message (a retry, a transactional or paced send), or a batch of campaign messages. */
const SendPayload = z.union([
  z.object({ messageId: z.string() }),
  z.object({ messageIds: z.array(z.string()) }),
]);
type SendPayload = z.infer<typeof SendPayload>;

const messageIdsOf = (payload: SendPayload) =>
  'messageIds' in payload ? payload.messageIds : [payload.messageId];

export const sendMessageJob: JobDefinition<SendPayload> = {
  name: SEND_QUEUE,
  // A handler that throws after its claim leaves the row to the sweep, so a pg-boss retry only
  // finds it claimed and sends nothing: retries cover failures before the claim.
  queue: { retryLimit: 3, retryDelay: 5, retryBackoff: true, notify: true },
  // A retry's job is delayed (startAfter), and no NOTIFY announces it when it comes due: with
  // notify on, pg-boss's backstop poll is 30 s, so the queue polls every 2 s as without notify.
  // A broadcast queues thousands at once: they are claimed, read, sent and recorded in batches
  // (deliverMessages), a job of up to SEND_JOB_MESSAGES each (or single-message jobs, a few at a
  // time). Eight batches overlap, so one batch waiting for its slowest send or for its recording
  // does not leave the pooled connections (or the CPU) idle.
  work: { batchSize: 2, burstWhenBatchFull: true, localConcurrency: 8, notifyPollingIntervalSeconds: 2 },
  handler: async (context: AppContext, jobs) => {
    await deliverMessages(
      context,
      jobs.flatMap((job) => messageIdsOf(SendPayload.parse(job.data))),
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
  queue: { retryLimit: 0, expireInSeconds: 300, notify: true },
  schedule: { cron: '* * * * *' },
  handler: async (context: AppContext) => {
    await sweepInterruptedSends(context);
    await pruneMessageIdempotencyKeys(context.db);
  },
};

export function messageJobs(settings: Config): JobDefinition[] {
  // A send job held by a killed worker before its claim would otherwise wait out pg-boss's expiry
  // with its messages queued; retrying sooner is safe because the claim decides what is sent.
  const expireInSeconds = Math.ceil(settings.MESSAGE_SEND_JOB_EXPIRE_MS / 1000);
  const sends = [sendMessageJob as JobDefinition, pacedSendJob(deliverMessage) as JobDefinition];
  return [...sends.map((job) => ({ ...job, queue: { ...job.queue, expireInSeconds } })), sweepMessagesJob];
}
