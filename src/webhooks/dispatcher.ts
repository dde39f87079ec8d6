// The outbound webhook dispatcher, a long-running worker service. Why a table-driven scheduler
// rather than a pg-boss job per delivery: see README "Webhooks". In short:
// - NOTIFY on 'switchboard_outbox' (sent at commit by `emit`) wakes it within milliseconds;
// - it fans out as many events as it has room to send (their first attempts come back leased),
//   claims due retries in batches under a lease, keeps a local queue of up to 4 × concurrency
//   and sends with bounded concurrency;
// - outcomes are recorded in batched transactions; an attempt row disappears only with its
//   delivery record, so a killed worker's leased attempts simply fall due again (at-least-once);
// - when idle it sleeps until the next attempt is due (index on due_at), polling as a fallback.
import type { Config } from '../config.ts';
import { type Listener, listen } from '../db/listener.ts';
import type { AppContext } from '../http/context.ts';
import type { WorkerService } from '../jobs/definition.ts';
import { createDeliveryHttp, type DeliveryHttp } from '../net/ssrf.ts';
import { OUTBOX_CHANNEL } from '../outbox/emit.ts';
import { type Outcome, performAttempt, recordOutcomes } from './attempts.ts';
import { WEBHOOKS_CHANNEL } from './deliveryQueries.ts';
import { type ClaimedAttempt, claimAttempts, nextDueAt, releaseAttempts } from './dispatchQueries.ts';
import { fanOutBatch } from './fanOut.ts';

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

type Deps = { http: DeliveryHttp; send: { timeoutMs: number; userAgent: string } };

/** Buffers outcomes and records them in batches, one transaction at a time. */
class OutcomeRecorder {
  private readonly outcomes: Outcome[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly context: AppContext;
  private readonly onRetry: (inMs: number) => void;
  readonly flush = serialised(() => this.drain());

  constructor(context: AppContext, onRetry: (inMs: number) => void) {
    this.context = context;
    this.onRetry = onRetry;
  }

  add(outcome: Outcome): void {
    this.outcomes.push(outcome);
    if (this.outcomes.length >= FLUSH_BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  async close(): Promise<void> {
    this.stopping = true;
    await this.flush();
  }

  private async drain(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.outcomes.length > 0) {
      const batch = this.outcomes.splice(0, FLUSH_BATCH);
      try {
        const retryInMs = await recordOutcomes(this.context.db, this.context.config, batch);
        if (retryInMs !== null) this.onRetry(retryInMs);
      } catch (error) {
        // Unrecorded attempts keep their rows: once the lease runs out they are sent again.
        this.context.log.error({ err: error, attempts: batch.length }, 'recording webhook outcomes failed');
        if (this.stopping) return;
        this.outcomes.unshift(...batch);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }
}

class Dispatcher {
  private readonly context: AppContext;
  private readonly concurrency: number;
  private readonly lease: number;
  private readonly deps: Deps;
  private readonly recorder: OutcomeRecorder;
  private readonly queue: { attempt: ClaimedAttempt; leasedAt: number }[] = [];
  /** How long a leased attempt may wait here and still be sent well inside its lease. */
  private readonly maxWait: number;
  private readonly inFlight = new Set<Promise<void>>();
  // What may have work: events to fan out (NOTIFY from `emit`), attempts due (NOTIFY from a
  // retry, a due time reached, a full claim). Completions alone create neither, so the pumps
  // they trigger cost no query unless one of these is set.
  private outboxDirty = true;
  private attemptsDirty = true;
  private messagesPerEvent = 1;
  private stopping = false;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  private listener: Listener | undefined;
  private readonly pump = serialised(() => this.pumpUntilIdle());

  constructor(context: AppContext) {
    const { config } = context;
    this.context = context;
    this.concurrency = config.WEBHOOK_CONCURRENCY;
    this.lease = leaseMs(config);
    this.maxWait = Math.max(this.lease / 2, this.lease - config.WEBHOOK_TIMEOUT_MS - 5000);
    const http = createDeliveryHttp({
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    });
    this.deps = {
      http,
      send: { timeoutMs: config.WEBHOOK_TIMEOUT_MS, userAgent: userAgent(context.version) },
    };
    this.recorder = new OutcomeRecorder(context, (inMs) => this.wakeIn(inMs));
  }

  start(): void {
    this.listener = listen({
      name: 'webhook dispatcher',
      databaseUrl: this.context.databaseUrl,
      channels: [OUTBOX_CHANNEL, WEBHOOKS_CHANNEL],
      log: this.context.log,
      onNotify: (channel) => {
        if (channel === OUTBOX_CHANNEL) this.outboxDirty = true;
        else this.attemptsDirty = true;
        void this.pump();
      },
      onConnect: () => this.wakeIn(0),
    });
    this.wakeIn(0);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.wakeTimer);
    await this.listener?.close();
    await this.pump(); // waits for a step in progress, which may still claim
    const unstarted = this.queue.splice(0).map((entry) => entry.attempt);
    await releaseAttempts(this.context.db, unstarted).catch((error) =>
      this.context.log.warn({ err: error }, 'releasing webhook attempts failed'),
    );
    await Promise.allSettled([...this.inFlight]);
    await this.recorder.close();
    await this.deps.http.agent.close();
  }

  /** Pumps in `ms` (unless sooner already), looking at everything: also the fallback poll. */
  private wakeIn(ms: number): void {
    const at = Date.now() + Math.max(0, ms);
    if (this.stopping || at >= this.wakeAt) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeAt = Number.POSITIVE_INFINITY;
      this.outboxDirty = this.attemptsDirty = true; // also catches a NOTIFY lost while reconnecting
      void this.pump();
    }, ms);
  }

  private fill(): void {
    const stale: ClaimedAttempt[] = [];
    while (!this.stopping && this.inFlight.size < this.concurrency && this.queue.length > 0) {
      const { attempt, leasedAt } = this.queue.shift() as (typeof this.queue)[number];
      // Waited too long (a slow endpoint ahead of it): its lease could run out mid-send and
      // another worker send it too. Hand it back instead; it is claimed again at once.
      if (Date.now() - leasedAt > this.maxWait) stale.push(attempt);
      else this.send(attempt);
    }
    if (stale.length > 0) this.release(stale);
  }

  private send(attempt: ClaimedAttempt): void {
    const running: Promise<void> = performAttempt(this.deps, attempt)
      .then((outcome) => this.recorder.add(outcome))
      .catch((error) =>
        this.context.log.error({ err: error, attemptId: attempt.id }, 'webhook attempt crashed'),
      )
      .finally(() => {
        this.inFlight.delete(running);
        this.fill();
        if (this.queue.length < 2 * this.concurrency) void this.pump();
      });
    this.inFlight.add(running);
  }

  private release(attempts: ClaimedAttempt[]): void {
    releaseAttempts(this.context.db, attempts)
      .then(() => {
        this.attemptsDirty = true;
        void this.pump();
      })
      .catch((error) => this.context.log.warn({ err: error }, 'releasing webhook attempts failed'));
  }

  private enqueue(attempts: readonly ClaimedAttempt[]): void {
    const leasedAt = Date.now();
    for (const attempt of attempts) this.queue.push({ attempt, leasedAt });
    this.fill();
  }

  /**
   * Fans out about as many events as there is room to send their messages now, so their first
   * attempts come back leased and need no claim; the messages-per-event ratio is learnt.
   * Returns how many attempts it leased.
   */
  private async fanOut(room: number): Promise<number> {
    this.outboxDirty = false;
    const limit = Math.max(1, Math.min(FAN_OUT_BATCH, Math.floor(room / this.messagesPerEvent)));
    const fanned = await fanOutBatch(this.context.db, limit, { count: room, ms: this.lease });
    const messages = fanned.leased.length + fanned.queued;
    if (fanned.events > 0) this.messagesPerEvent = Math.max(1, messages / fanned.events);
    this.enqueue(fanned.leased);
    if (fanned.events === limit) this.outboxDirty = true;
    if (fanned.queued > 0) this.attemptsDirty = true;
    return fanned.leased.length;
  }

  /** Claims due attempts; when fewer than asked, sleeps until the next one is due. */
  private async claimDue(room: number): Promise<void> {
    this.attemptsDirty = false;
    const claimed = await claimAttempts(this.context.db, { limit: room }, this.lease);
    this.enqueue(claimed);
    if (claimed.length === room) {
      this.attemptsDirty = true;
      return;
    }
    const due = await nextDueAt(this.context.db);
    this.wakeIn(Math.min(IDLE_POLL_MS, due ? Date.parse(due) - Date.now() : IDLE_POLL_MS));
  }

  /** One round; true when there may be more to do and room to do it. */
  private async step(): Promise<boolean> {
    let room = QUEUE_DEPTH * this.concurrency - this.inFlight.size - this.queue.length;
    if (room > 0 && this.outboxDirty) room -= await this.fanOut(room);
    if (room > 0 && this.attemptsDirty) await this.claimDue(room);
    // Without room, completions pump again once the local queue runs low.
    return room > 0 && (this.outboxDirty || this.attemptsDirty);
  }

  private async pumpUntilIdle(): Promise<void> {
    try {
      while (!this.stopping && (await this.step())) {}
    } catch (error) {
      this.context.log.error({ err: error }, 'webhook dispatcher step failed; retrying shortly');
      this.wakeIn(1000);
    }
  }
}

export async function startDispatcher(context: AppContext) {
  const dispatcher = new Dispatcher(context);
  dispatcher.start();
  return { stop: () => dispatcher.stop() };
}

export const webhookDispatcher: WorkerService = { name: 'webhooks.dispatcher', start: startDispatcher };
