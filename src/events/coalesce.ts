// Group commit for single-event ingest. Concurrent POST …/events requests to one workspace share a
// transaction: the pipeline is set-based, so a group of twenty costs about the round-trips of one
// event (ten statements and a commit), where twenty transactions cost twenty times that. Each
// request still answers only after its group committed, with its own event and side effects.
//
// - A group starts at once when none is running (after the current I/O phase, so requests that
//   arrived together go together), so an idle service adds no latency. While groups run, requests
//   wait and leave together when one ends, or beside them once enough wait (MIN_OVERLAPPING_GROUP,
//   up to CONCURRENT_GROUPS at a time).
// - A group that fails for any reason (an unknown contactId, a reused idempotency key, a deadlock
//   between two groups) is rolled back whole and its requests are run again one by one, each in
//   its own transaction, so one request's error is never another's.
import type { DatabasePool } from 'slonik';
import { type IngestItem, type IngestResult, ingestEvents } from './ingest.ts';

/** Groups in flight per process; a group holds one pooled connection while it runs. */
const CONCURRENT_GROUPS = 4;
/** The most requests one group carries: bigger groups lock more contacts at once. */
const MAX_GROUP = 100;
/**
 * While a group runs, another starts beside it only for this many waiting requests; fewer wait for
 * a running group to end and leave together. Starting every free slot at once made groups of one
 * or two, each paying the whole pipeline's round-trips.
 */
const MIN_OVERLAPPING_GROUP = 16;

type Waiting = {
  item: IngestItem;
  resolve: (result: IngestResult) => void;
  reject: (error: unknown) => void;
};

class IngestCoalescer {
  private readonly pool: DatabasePool;
  /** Waiting requests by workspace; Map order serves the workspace that waited longest first. */
  private readonly waiting = new Map<string, Waiting[]>();
  private running = 0;
  private waitingCount = 0;
  private scheduled = false;

  constructor(pool: DatabasePool) {
    this.pool = pool;
  }

  submit(workspaceId: string, item: IngestItem): Promise<IngestResult> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(workspaceId);
      if (queue) queue.push({ item, resolve, reject });
      else this.waiting.set(workspaceId, [{ item, resolve, reject }]);
      this.waitingCount++;
      this.schedule();
    });
  }

  private mayStartGroup(): boolean {
    if (this.waitingCount === 0) return false;
    if (this.running === 0) return true;
    return this.running < CONCURRENT_GROUPS && this.waitingCount >= MIN_OVERLAPPING_GROUP;
  }

  private schedule() {
    if (this.scheduled || !this.mayStartGroup()) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startGroups();
    });
  }

  private startGroups() {
    while (this.mayStartGroup()) {
      const [workspaceId, queue] = this.waiting.entries().next().value!;
      const group = queue.splice(0, MAX_GROUP);
      this.waitingCount -= group.length;
      this.waiting.delete(workspaceId);
      // The rest of a long queue goes to the back, behind other workspaces.
      if (queue.length > 0) this.waiting.set(workspaceId, queue);
      this.running++;
      this.run(workspaceId, group).finally(() => {
        this.running--;
        this.startGroups();
      });
    }
  }

  private async run(workspaceId: string, group: Waiting[]) {
    let applied = false;
    try {
      const results = await this.pool.transaction(async (tx) => {
        applied = false; // a retried transaction starts over
        const ingested = await ingestEvents(
          tx,
          workspaceId,
          group.map((waiting) => waiting.item),
          { source: 'api' },
        );
        applied = true;
        return ingested;
      });
      for (const [position, waiting] of group.entries()) waiting.resolve(results[position]);
    } catch (error) {
      // Once the pipeline ran, only COMMIT can have failed, and whether it took is unknown: running
      // the events again could store them twice, so each request gets the error, as alone it would.
      if (applied || group.length === 1) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
      for (const waiting of group) {
        await this.pool
          .transaction((tx) => ingestEvents(tx, workspaceId, [waiting.item], { source: 'api' }))
          .then(([result]) => waiting.resolve(result), waiting.reject);
      }
    }
  }
}

const coalescers = new WeakMap<DatabasePool, IngestCoalescer>();

/** Ingests one event in a transaction it may share with concurrent requests to the workspace. */
export function ingestCoalesced(pool: DatabasePool, workspaceId: string, item: IngestItem) {
  let coalescer = coalescers.get(pool);
  if (!coalescer) {
    coalescer = new IngestCoalescer(pool);
    coalescers.set(pool, coalescer);
  }
  return coalescer.submit(workspaceId, item);
}
