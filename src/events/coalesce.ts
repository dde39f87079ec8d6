// Group commit for single-event ingest. Concurrent POST …/events requests to one workspace share a
// transaction: the pipeline is set-based, so a group of twenty costs about the round-trips of one
// event (seven statements, BEGIN and COMMIT included), where twenty transactions cost twenty times
// that. Each request still answers only after its group committed, with its own event and side
// effects.
//
// - A workspace with no group running starts one at once (after the current I/O phase, so requests
//   that arrived together go together): an idle service adds no latency, and one workspace's slow
//   group (waiting on a batch import's row locks, say) never holds up another workspace.
// - While a workspace's group runs, its new requests wait and leave together when it ends, or
//   beside it once MIN_OVERLAPPING_GROUP wait (at most GROUPS_PER_WORKSPACE at a time).
// - A group that fails is rolled back whole and its requests are run again one by one, so one
//   request's error is never another's: an unknown contactId, a reused idempotency key, bad data, a
//   deadlock with another group, or any error thrown while preparing one request's rows. Only a
//   failure of the database itself (connection lost or refused, out of resources, shutting down,
//   statement timeout) is every request's answer at once, as alone it would have been; running
//   each again would only wait on the same failure once per request.
import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  type DatabasePool,
} from 'slonik';
import type { ContactEffects } from '../contacts/index.ts';
import { ServiceUnavailableError } from '../core/errors.ts';
import { type IngestItem, type IngestResult, ingestEvents } from './ingest.ts';

/** Groups in flight per process; each holds a pooled connection (the default pool has 10). */
const MAX_GROUPS = 6;
/** Groups in flight for one workspace. */
const GROUPS_PER_WORKSPACE = 4;
/** The most requests one group carries: bigger groups lock more contacts at once. */
const MAX_GROUP = 100;
/**
 * While a workspace's group runs, another starts beside it only for this many waiting requests;
 * fewer wait for a running group to end and leave together. Starting every free slot at once made
 * groups of one or two, each paying the whole pipeline's round-trips.
 */
const MIN_OVERLAPPING_GROUP = 16;
/**
 * SQLSTATE classes of the database failing rather than a request: connection exception,
 * insufficient resources, operator intervention (shutdown, statement timeout), system error.
 */
const DATABASE_SQLSTATE_CLASSES = new Set(['08', '53', '57', '58']);

type Waiting = {
  item: IngestItem;
  since: number;
  resolve: (result: IngestResult) => void;
  reject: (error: unknown) => void;
};

/** How often waiting requests are checked against the longest wait allowed. */
const SWEEP_MS = 250;

/** The SQLSTATE of a database error, wherever slonik wrapped it. */
function sqlState(error: unknown): string | null {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}

/** Whether the database itself failed (every request would fail alone too); anything else may be one request's doing. */
function databaseFailed(error: unknown): boolean {
  if (
    error instanceof ServiceUnavailableError ||
    error instanceof ConnectionError ||
    error instanceof BackendTerminatedError ||
    error instanceof BackendTerminatedUnexpectedlyError
  ) {
    return true;
  }
  const state = sqlState(error);
  if (state !== null) return DATABASE_SQLSTATE_CLASSES.has(state.slice(0, 2));
  // A socket that failed (ECONNRESET, ECONNREFUSED, ETIMEDOUT …) without a SQLSTATE.
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

/** What ingest runs with: the pool, and what follows a change to contacts (a context will do). */
export type Ingesting = { db: DatabasePool; effects: { contacts: ContactEffects } };

class IngestCoalescer {
  private readonly pool: DatabasePool;
  private readonly effects: ContactEffects;
  /** Waiting requests by workspace; Map order serves the workspace that waited longest first. */
  private readonly waiting = new Map<string, Waiting[]>();
  /** Groups running, by workspace. */
  private readonly running = new Map<string, number>();
  private runningTotal = 0;
  private scheduled = false;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly maxWaitMs: number;

  constructor(app: Ingesting, maxWaitMs: number) {
    this.pool = app.db;
    this.effects = app.effects.contacts;
    this.maxWaitMs = maxWaitMs;
  }

  submit(workspaceId: string, item: IngestItem): Promise<IngestResult> {
    return new Promise((resolve, reject) => {
      const waiting = { item, since: Date.now(), resolve, reject };
      const queue = this.waiting.get(workspaceId);
      if (queue) queue.push(waiting);
      else this.waiting.set(workspaceId, [waiting]);
      this.sweeper ??= setInterval(() => this.refuseOverdue(), SWEEP_MS).unref();
      this.schedule();
    });
  }

  /**
   * Requests that waited longer than the limit for a group to take them are refused with 503 (they
   * were stored nowhere): an overloaded database sheds load instead of piling it up.
   */
  private refuseOverdue() {
    const oldest = Date.now() - this.maxWaitMs;
    for (const [workspaceId, queue] of this.waiting) {
      const overdue = queue.filter((waiting) => waiting.since < oldest);
      if (overdue.length === 0) continue;
      const kept = queue.filter((waiting) => waiting.since >= oldest);
      if (kept.length > 0) this.waiting.set(workspaceId, kept);
      else this.waiting.delete(workspaceId);
      const error = new ServiceUnavailableError(
        `The event waited over ${this.maxWaitMs} ms for the database and was not stored; retry it.`,
        1,
      );
      for (const waiting of overdue) waiting.reject(error);
    }
    if (this.waiting.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private mayStart(workspaceId: string, waiting: number): boolean {
    const running = this.running.get(workspaceId) ?? 0;
    return running === 0 || (running < GROUPS_PER_WORKSPACE && waiting >= MIN_OVERLAPPING_GROUP);
  }

  /** The workspace that waited longest among those that may start a group now. */
  private nextWorkspace(): string | undefined {
    if (this.runningTotal >= MAX_GROUPS) return undefined;
    for (const [workspaceId, queue] of this.waiting) {
      if (this.mayStart(workspaceId, queue.length)) return workspaceId;
    }
    return undefined;
  }

  private schedule() {
    if (this.scheduled || this.nextWorkspace() === undefined) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startGroups();
    });
  }

  private startGroups() {
    for (let workspaceId = this.nextWorkspace(); workspaceId; workspaceId = this.nextWorkspace()) {
      const queue = this.waiting.get(workspaceId)!;
      const group = queue.splice(0, MAX_GROUP);
      this.waiting.delete(workspaceId);
      // The rest of a long queue goes to the back, behind other workspaces.
      if (queue.length > 0) this.waiting.set(workspaceId, queue);
      this.running.set(workspaceId, (this.running.get(workspaceId) ?? 0) + 1);
      this.runningTotal++;
      this.run(workspaceId, group).finally(() => {
        const left = this.running.get(workspaceId)! - 1;
        if (left === 0) this.running.delete(workspaceId);
        else this.running.set(workspaceId, left);
        this.runningTotal--;
        this.startGroups();
      });
    }
  }

  private async run(workspaceId: string, group: Waiting[]) {
    const progress = { applied: false };
    try {
      const results = await this.ingest(
        workspaceId,
        group.map((waiting) => waiting.item),
        progress,
      );
      for (const [position, waiting] of group.entries()) waiting.resolve(results[position]);
    } catch (error) {
      // Once the pipeline ran, only COMMIT can have failed, and whether it took is unknown: running
      // the events again could store them twice.
      if (progress.applied || group.length === 1 || databaseFailed(error)) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
      for (const waiting of group) {
        await this.ingest(workspaceId, [waiting.item]).then(
          ([result]) => waiting.resolve(result),
          waiting.reject,
        );
      }
    }
  }

  /** One transaction for these events; `progress.applied` once the whole pipeline ran in it. */
  private ingest(workspaceId: string, items: IngestItem[], progress = { applied: false }) {
    return this.pool.transaction(async (tx) => {
      progress.applied = false; // a retried transaction starts over
      const results = await ingestEvents(tx, this.effects, workspaceId, items, { source: 'api' });
      progress.applied = true;
      return results;
    });
  }
}

const coalescers = new WeakMap<DatabasePool, IngestCoalescer>();

/**
 * Ingests one event in a transaction it may share with concurrent requests to the workspace; 503
 * when it waited over `maxWaitMs` for one (the first call for a pool sets the limit).
 */
export function ingestCoalesced(app: Ingesting, workspaceId: string, item: IngestItem, maxWaitMs: number) {
  let coalescer = coalescers.get(app.db);
  if (!coalescer) {
    coalescer = new IngestCoalescer(app, maxWaitMs);
    coalescers.set(app.db, coalescer);
  }
  return coalescer.submit(workspaceId, item);
}
