// Sending at the channel's rate (provider limits, shared by every worker process): an attempt whose
// channel has a rate reserves a send slot (channels' reserveSendSlot) before its claim. A slot due
// now is claimed at once; a later one goes to the `messages.send-paced` queue, whose job is fetched
// a little before the slot and waits for it in the process, so sends leave spaced as reserved
// rather than in bursts at each poll. Delayed, never dropped; the main send queue never waits, so
// another workspace's sends are never held behind a throttled one.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { reserveSendSlot } from '../channels/index.ts';
import type { AppContext } from '../core/context.ts';
import type { Db } from '../db/pool.ts';
import { transactionalDb } from '../jobs/boss.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { lockMessageWithoutSlot, rateSlotWaitMs, setRateSlot } from './claimQueries.ts';
import type { MessageRow } from './rows.ts';

export const PACED_SEND_QUEUE = 'messages.send-paced';

/** How early a paced job is due: a few of the queue's polls, so it is fetched before its slot. */
const LEAD_MS = 1_500;
/** A paced job further than this from its slot (queued again after a crash) is put back, not slept. */
const MAX_SLEEP_MS = 3 * LEAD_MS;
/** The database's clock and ours may differ by a little: wake this much after the slot. */
const CLOCK_MARGIN_MS = 5;

/** Whether the message's attempt may have to reserve a send slot before its claim. */
const needsSendSlot = (message: MessageRow) => message.status === 'queued' && message.rate_slot_at === null;

/**
 * Reserves a slot for each of these messages (left out by the claim) whose attempt needs one, one
 * after another (they would wait on the same slot row anyway); returns the ids to claim now.
 */
export async function reserveSlots(app: AppContext, messages: readonly MessageRow[]): Promise<string[]> {
  const due: string[] = [];
  for (const message of messages.filter(needsSendSlot)) {
    if ((await reserveSlotFor(app, message.id)) === 'now') due.push(message.id);
  }
  return due;
}

/**
 * Reserves the attempt's send slot, with its paced job when the slot is later, in one transaction.
 * `now`: claim again (the slot is due, no rate applies, or another caller reserved it); `later`:
 * the paced job sends it.
 */
export async function reserveSlotFor(app: AppContext, messageId: string): Promise<'now' | 'later'> {
  return app.db.transaction(async (tx) => {
    const message = await lockMessageWithoutSlot(tx, messageId);
    if (!message) return 'now';
    const slot = await reserveSendSlot(tx, {
      workspaceId: message.workspace_id,
      channel: message.channel,
      notBefore: message.next_attempt_at ? new Date(message.next_attempt_at) : null,
    });
    if (!slot) return 'now';
    await setRateSlot(tx, message.id, slot.at);
    if (slot.waitMs <= 0) return 'now';
    await pacedJob(app, tx, messageId, slot.waitMs);
    return 'later';
  });
}

/** The paced job, due LEAD_MS before the slot; in `db`'s transaction when given. */
async function pacedJob(app: AppContext, db: Db | null, messageId: string, waitMs: number) {
  const dueInSeconds = (waitMs - LEAD_MS) / 1000;
  await app.boss.send(
    PACED_SEND_QUEUE,
    { messageId },
    {
      ...(db ? { db: transactionalDb(db) } : {}),
      ...(dueInSeconds > 0 ? { startAfter: dueInSeconds } : {}),
    },
  );
}

type Deliver = (app: AppContext, messageId: string, paced: boolean) => Promise<string>;

/** Waits for the message's slot, then delivers it; a slot still ahead after that is waited for again. */
async function deliverAtSlot(app: AppContext, messageId: string, deliver: Deliver): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const waitMs = await rateSlotWaitMs(app.db, messageId);
    if (waitMs !== null && waitMs > MAX_SLEEP_MS) return pacedJob(app, null, messageId, waitMs);
    if (waitMs !== null && waitMs > 0) await sleep(waitMs + CLOCK_MARGIN_MS);
    const status = await deliver(app, messageId, true);
    if (status !== 'queued' || waitMs === null) return;
  }
}

const PacedPayload = z.object({ messageId: z.string() });

export function pacedSendJob(deliver: Deliver): JobDefinition<z.infer<typeof PacedPayload>> {
  return {
    name: PACED_SEND_QUEUE,
    // notify: a slot due within LEAD_MS is queued due now, and fetched now.
    queue: { retryLimit: 3, retryDelay: 1, expireInSeconds: 600, notify: true },
    // A batch waits for its latest slot (at most about LEAD_MS away); several loops per process, so
    // one of them is polling while the others wait, and no job is fetched after its slot.
    work: {
      batchSize: 50,
      localConcurrency: 4,
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 0.5,
      notifyPollingIntervalSeconds: 0.5,
    },
    handler: async (context: AppContext, jobs) => {
      await Promise.all(
        jobs.map((job) => deliverAtSlot(context, PacedPayload.parse(job.data).messageId, deliver)),
      );
    },
  };
}
