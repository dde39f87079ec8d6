// The outbound webhook dispatcher, a long-running worker service. Why a table-driven scheduler
// rather than a pg-boss job per delivery: see docs/decisions/0004-outbox-dispatcher.md. In short:
// - NOTIFY on 'switchboard_outbox' (sent at commit by `emit`) wakes it within milliseconds;
// - it fans out as many events as it has room to send (their first attempts come back leased),
//   claims due retries in batches under a lease, keeps a local queue of up to 4 × concurrency
//   and sends with bounded concurrency, and at most WEBHOOK_ENDPOINT_CONCURRENCY to one endpoint
//   (a receiver that hangs holds only its own slots; its surplus attempts go back to the table
//   and are not claimed again until one of its slots frees);
// - outcomes are recorded in batched transactions; an attempt row disappears only with its
//   delivery record, so a killed worker's leased attempts simply fall due again (at-least-once);
// - when idle it sleeps until the next attempt is due (index on due_at), polling as a fallback.
import type { Config } from '../config.ts';
import type { AppContext } from '../core/context.ts';
import { type Listener, listen } from '../db/listener.ts';
import type { WorkerService } from '../jobs/definition.ts';
import { createDeliveryHttp, type DeliveryHttp } from '../net/ssrf.ts';
import { OUTBOX_CHANNEL } from '../outbox/emit.ts';
import { reportMissingKey } from '../secrets/index.ts';
import { performAttempt } from './attempts.ts';
import { WEBHOOKS_CHANNEL } from './deliveryQueries.ts';
import { type ClaimedAttempt, claimAttempts, nextDueAt, releaseAttempts } from './dispatchQueries.ts';
import { fanOutBatch } from './fanOut.ts';
import { OutcomeRecorder, serialised } from './outcomeRecorder.ts';

const FAN_OUT_BATCH = 200;
// Attempts held locally (sending or about to), as a multiple of the concurrency: deep enough that
// sends never wait for the next fan-out, shallow enough that a lease outlasts the wait.
const QUEUE_DEPTH = 4;
const IDLE_POLL_MS = 5000;

/** Long enough for a send and its recording; a crashed worker's attempts wait this long. */
export function leaseMs(config: Config): number {
  return config.WEBHOOK_LEASE_MS ?? config.WEBHOOK_TIMEOUT_MS * 2 + 30_000;
}

/** Sends in flight to one endpoint: by default half of the worker's, so one cannot take them all. */
export function endpointConcurrency(config: Config): number {
  return Math.min(
    config.WEBHOOK_CONCURRENCY,
    config.WEBHOOK_ENDPOINT_CONCURRENCY ?? Math.ceil(config.WEBHOOK_CONCURRENCY / 2),
  );
}

export function userAgent(version: string): string {
  return `Switchboard-Webhooks/${version}`;
}

type Deps = { http: DeliveryHttp; send: { timeoutMs: number; userAgent: string } };

class Dispatcher {
  private readonly context: AppContext;
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  /** Sends in flight per endpoint. */
  private readonly busy = new Map<string, number>();
  private readonly lease: number;
  private readonly deps: Deps;
  private readonly recorder: OutcomeRecorder;
  private queue: { attempt: ClaimedAttempt; leasedAt: number }[] = [];
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
    this.perEndpoint = endpointConcurrency(config);
    this.lease = leaseMs(config);
    this.maxWait = Math.max(this.lease / 2, this.lease - config.WEBHOOK_TIMEOUT_MS - 5000);
    const http = createDeliveryHttp({
      allowPrivate: config.ALLOW_PRIVATE_TARGETS,
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
    const delay = Math.max(0, ms); // an attempt already due: a negative delay warns (TimeoutNegativeWarning)
    const at = Date.now() + delay;
    if (this.stopping || at >= this.wakeAt) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeAt = Number.POSITIVE_INFINITY;
      this.outboxDirty = this.attemptsDirty = true; // also catches a NOTIFY lost while reconnecting
      void this.pump();
    }, delay);
  }

  private saturated(endpointId: string): boolean {
    return (this.busy.get(endpointId) ?? 0) >= this.perEndpoint;
  }

  /** Endpoints with every slot of theirs in use: claims leave their attempts in the table. */
  private saturatedEndpoints(): string[] {
    return [...this.busy].filter(([, sending]) => sending >= this.perEndpoint).map(([id]) => id);
  }

  /** Sends what the queue holds, in order, skipping attempts whose endpoint has no slot free. */
  private fill(): void {
    const stale: ClaimedAttempt[] = [];
    let blocked = false;
    for (let i = 0; !this.stopping && this.inFlight.size < this.concurrency && i < this.queue.length; ) {
      const { attempt, leasedAt } = this.queue[i];
      // Waited too long (a slow endpoint ahead of it): its lease could run out mid-send and
      // another worker send it too. Hand it back instead; it is claimed again at once.
      if (Date.now() - leasedAt > this.maxWait) stale.push(attempt);
      else if (this.saturated(attempt.endpoint_id)) {
        blocked = true;
        i++;
        continue;
      } else this.send(attempt);
      this.queue.splice(i, 1);
    }
    if (blocked) stale.push(...this.shedSaturated());
    if (stale.length > 0) this.release(stale);
  }

  /**
   * Keeps at most one round of slots' worth of attempts per saturated endpoint queued here; the
   * rest go back to the table, so a hanging endpoint cannot fill the queue and starve the others.
   */
  private shedSaturated(): ClaimedAttempt[] {
    const held = new Map<string, number>();
    const shed: ClaimedAttempt[] = [];
    this.queue = this.queue.filter(({ attempt }) => {
      if (!this.saturated(attempt.endpoint_id)) return true;
      const count = (held.get(attempt.endpoint_id) ?? 0) + 1;
      held.set(attempt.endpoint_id, count);
      if (count <= this.perEndpoint) return true;
      shed.push(attempt);
      return false;
    });
    return shed;
  }

  private send(attempt: ClaimedAttempt): void {
    const endpointId = attempt.endpoint_id;
    this.busy.set(endpointId, (this.busy.get(endpointId) ?? 0) + 1);
    const running: Promise<void> = performAttempt(this.deps, attempt)
      .then((outcome) => {
        if (outcome.result.keyMissing && outcome.result.error)
          reportMissingKey(this.context.log, outcome.result.error, { endpointId, attemptId: attempt.id });
        return this.recorder.add(outcome);
      })
      .catch((error) =>
        this.context.log.error({ err: error, attemptId: attempt.id }, 'webhook attempt crashed'),
      )
      .finally(() => {
        this.inFlight.delete(running);
        const sending = (this.busy.get(endpointId) ?? 1) - 1;
        // A slot of a saturated endpoint freed: its attempts left in the table may be claimed.
        if (sending + 1 >= this.perEndpoint) this.attemptsDirty = true;
        if (sending === 0) this.busy.delete(endpointId);
        else this.busy.set(endpointId, sending);
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
    const skipEndpoints = this.saturatedEndpoints();
    const claimed = await claimAttempts(this.context.db, { limit: room, skipEndpoints }, this.lease);
    this.enqueue(claimed);
    if (claimed.length === room) {
      this.attemptsDirty = true;
      return;
    }
    const due = await nextDueAt(this.context.db, skipEndpoints);
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
