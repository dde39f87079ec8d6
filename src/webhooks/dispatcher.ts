// The outbound webhook dispatcher, a long-running worker service. Why a table-driven scheduler
// rather than a pg-boss job per delivery: see README "Webhooks". In short:
// - NOTIFY on 'switchboard_outbox' (sent at commit by `emit`) wakes it within milliseconds;
// - it fans events out in batches, claims due attempts in batches under a lease, keeps a local
//   queue of up to 4 × concurrency and sends with bounded concurrency;
// - outcomes are recorded in batched transactions; an attempt row disappears only with its
//   delivery record, so a killed worker's leased attempts simply fall due again (at-least-once);
// - when idle it sleeps until the next attempt is due (index on due_at), polling as a fallback.
import type { Config } from '../config.ts';
import type { AppContext } from '../http/context.ts';
import type { WorkerService } from '../jobs/registry.ts';
import { OUTBOX_CHANNEL } from '../outbox/emit.ts';
import { type Outcome, performAttempt, recordOutcomes } from './attempts.ts';
import { WEBHOOKS_CHANNEL } from './deliveryQueries.ts';
import { type ClaimedAttempt, claimAttempts, nextDueAt, releaseAttempts } from './dispatchQueries.ts';
import { fanOutBatch } from './fanOut.ts';
import { listen } from './listener.ts';
import { createDeliveryHttp } from './ssrf.ts';

const FAN_OUT_BATCH = 200;
// Attempts held locally (sending or about to), as a multiple of the concurrency: deep enough that
// sends never wait for the next fan-out, shallow enough that a lease outlasts the wait.
const QUEUE_DEPTH = 4;
const FLUSH_BATCH = 500;
// Recording later only delays bookkeeping (the receiver already has the request); bigger batches
// mean fewer commits.
const FLUSH_DELAY_MS = 20;
const IDLE_POLL_MS = 5000;

/** Long enough for a send and its recording; a crashed worker's attempts wait this long. */
export function leaseMs(config: Config): number {
  return config.WEBHOOK_LEASE_MS ?? config.WEBHOOK_TIMEOUT_MS * 2 + 30_000;
}

export function userAgent(version: string): string {
  return `Switchboard-Webhooks/${version}`;
}

/** Runs `task` now, or once more right after the run in progress: never two at a time. */
function serialised(task: () => Promise<void>) {
  let running: Promise<void> | null = null;
  let again = false;
  const trigger = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = task().finally(() => {
      running = null;
      if (again) {
        again = false;
        void trigger();
      }
    });
    return running;
  };
  return trigger;
}

export async function startDispatcher(context: AppContext) {
  const { db, config, log } = context;
  const concurrency = config.WEBHOOK_CONCURRENCY;
  const lease = leaseMs(config);
  const http = createDeliveryHttp({
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
  });
  const deps = {
    http,
    send: { timeoutMs: config.WEBHOOK_TIMEOUT_MS, userAgent: userAgent(context.version) },
  };
  const queue: ClaimedAttempt[] = [];
  const inFlight = new Set<Promise<void>>();
  const outcomes: Outcome[] = [];
  // What may have work: events to fan out (NOTIFY from `emit`), attempts due (NOTIFY from a
  // retry or replay, a due time reached, a full claim). Completions alone create neither, so the
  // pumps they trigger cost no query unless one of these is set.
  let outboxDirty = true;
  let attemptsDirty = true;
  let messagesPerEvent = 1;
  let stopping = false;
  let wakeTimer: NodeJS.Timeout | undefined;
  let wakeAt = Number.POSITIVE_INFINITY;
  let flushTimer: NodeJS.Timeout | undefined;

  const wakeIn = (ms: number) => {
    const at = Date.now() + Math.max(0, ms);
    if (stopping || at >= wakeAt) return;
    clearTimeout(wakeTimer);
    wakeAt = at;
    wakeTimer = setTimeout(() => {
      wakeAt = Number.POSITIVE_INFINITY;
      outboxDirty = attemptsDirty = true; // the poll also catches a NOTIFY lost while reconnecting
      void pump();
    }, ms);
  };

  const flush = serialised(async () => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    while (outcomes.length > 0) {
      const batch = outcomes.splice(0, FLUSH_BATCH);
      try {
        const retryInMs = await recordOutcomes(db, config, batch);
        if (retryInMs !== null) wakeIn(retryInMs);
      } catch (error) {
        // Unrecorded attempts keep their rows: once the lease runs out they are sent again.
        log.error({ err: error, attempts: batch.length }, 'recording webhook outcomes failed');
        if (stopping) return;
        outcomes.unshift(...batch);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  });

  const recorded = (outcome: Outcome) => {
    outcomes.push(outcome);
    if (outcomes.length >= FLUSH_BATCH) void flush();
    else flushTimer ??= setTimeout(() => void flush(), FLUSH_DELAY_MS);
  };

  const fill = () => {
    while (!stopping && inFlight.size < concurrency && queue.length > 0) {
      const attempt = queue.shift() as ClaimedAttempt;
      const running: Promise<void> = performAttempt(deps, attempt)
        .then(recorded)
        .catch((error) => log.error({ err: error, attemptId: attempt.id }, 'webhook attempt crashed'))
        .finally(() => {
          inFlight.delete(running);
          fill();
          if (queue.length < 2 * concurrency) void pump();
        });
      inFlight.add(running);
    }
  };

  /** One round: fan out what there is room to send, then claim due attempts. True: go again. */
  const step = async (): Promise<boolean> => {
    let room = QUEUE_DEPTH * concurrency - inFlight.size - queue.length;
    if (room <= 0) return false; // completions pump again once the queue runs low
    let more = false;
    if (outboxDirty) {
      outboxDirty = false;
      // Take about as many events as there is room to send their messages now, so first attempts
      // come back leased and need no second claim; the ratio is learnt from the last batch.
      const limit = Math.max(1, Math.min(FAN_OUT_BATCH, Math.floor(room / messagesPerEvent)));
      const fanned = await fanOutBatch(db, limit, { count: room, ms: lease });
      const messages = fanned.leased.length + fanned.queued;
      if (fanned.events > 0) messagesPerEvent = Math.max(1, messages / fanned.events);
      queue.push(...fanned.leased);
      fill();
      room -= fanned.leased.length;
      if (fanned.events === limit) outboxDirty = more = true;
      if (fanned.queued > 0) attemptsDirty = true;
    }
    if (room <= 0 || !attemptsDirty) return more;
    attemptsDirty = false;
    const claimed = await claimAttempts(db, { limit: room }, lease);
    queue.push(...claimed);
    fill();
    if (claimed.length === room) {
      attemptsDirty = true;
      return true;
    }
    const due = await nextDueAt(db);
    wakeIn(Math.min(IDLE_POLL_MS, due ? Date.parse(due) - Date.now() : IDLE_POLL_MS));
    return more;
  };

  const pump = serialised(async () => {
    try {
      while (!stopping && (await step())) {}
    } catch (error) {
      log.error({ err: error }, 'webhook dispatcher step failed; retrying shortly');
      outboxDirty = attemptsDirty = true;
      wakeIn(1000);
    }
  });

  const listener = listen({
    databaseUrl: context.databaseUrl,
    channels: [OUTBOX_CHANNEL, WEBHOOKS_CHANNEL],
    log,
    onNotify: (channel) => {
      if (channel === OUTBOX_CHANNEL) outboxDirty = true;
      else attemptsDirty = true;
      void pump();
    },
    onConnect: () => {
      outboxDirty = attemptsDirty = true;
      void pump();
    },
  });

  return {
    stop: async () => {
      stopping = true;
      clearTimeout(wakeTimer);
      await listener.close();
      await pump(); // waits for a step in progress, which may still claim
      const unstarted = queue.splice(0).map((attempt) => attempt.id);
      await releaseAttempts(db, unstarted).catch((error) => log.warn({ err: error }, 'release failed'));
      await Promise.allSettled([...inFlight]);
      await flush();
      await http.agent.close();
    },
  };
}

export const webhookDispatcher: WorkerService = { name: 'webhooks.dispatcher', start: startDispatcher };
