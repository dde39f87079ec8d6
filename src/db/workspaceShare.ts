// Each workspace's share of a process's query pool. Without it, one workspace's heavy requests or
// jobs could take every pooled connection and make every other workspace's requests wait for them.
// Request handlers and jobs run "as" a workspace (AsyncLocalStorage); while any of their queries is
// in flight they hold one of that workspace's WORKSPACE_POOL_SHARE permits. A request that cannot
// get one within WORKSPACE_POOL_WAIT_MS is refused with 503 and Retry-After; jobs wait their turn.
// Work outside any workspace (sign-in, health, pg-boss) is not limited.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabasePool } from 'slonik';
import { ServiceUnavailableError } from '../core/errors.ts';
import { CONNECTION_METHODS } from './acquireTimeout.ts';

type Running = {
  workspaceId: string;
  /** How long to wait for a permit; null: as long as it takes (jobs). */
  maxWaitMs: number | null;
  /** Pool calls of this request or job in flight: they share one permit. */
  active: number;
  permit: Promise<void> | null;
};

const running = new AsyncLocalStorage<Running>();

/** Runs `work` as a request of this workspace: its pool use counts against the workspace's share. */
export function runAsWorkspace<T>(
  workspaceId: string,
  work: () => Promise<T>,
  maxWaitMs: number | null = null,
) {
  return running.run({ workspaceId, maxWaitMs, active: 0, permit: null }, work);
}

type Waiter = { grant: () => void };

/** Counting semaphores, one per workspace, created on first use and dropped when idle. */
class WorkspacePermits {
  private readonly inUse = new Map<string, number>();
  private readonly waiting = new Map<string, Waiter[]>();
  private readonly perWorkspace: number;

  constructor(perWorkspace: number) {
    this.perWorkspace = perWorkspace;
  }

  acquire(workspaceId: string, maxWaitMs: number | null): Promise<void> {
    const used = this.inUse.get(workspaceId) ?? 0;
    if (used < this.perWorkspace) {
      this.inUse.set(workspaceId, used + 1);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(workspaceId) ?? [];
      this.waiting.set(workspaceId, queue);
      const timer =
        maxWaitMs === null
          ? null
          : setTimeout(() => {
              queue.splice(queue.indexOf(waiter), 1);
              if (queue.length === 0) this.waiting.delete(workspaceId);
              reject(this.busy(maxWaitMs));
            }, maxWaitMs);
      const waiter: Waiter = {
        grant: () => {
          if (timer) clearTimeout(timer);
          resolve();
        },
      };
      queue.push(waiter);
    });
  }

  /** Hands the permit to the next waiter of the workspace, or returns it. */
  release(workspaceId: string): void {
    const queue = this.waiting.get(workspaceId);
    const next = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(workspaceId);
    if (next) {
      next.grant();
      return;
    }
    const used = (this.inUse.get(workspaceId) ?? 1) - 1;
    if (used === 0) this.inUse.delete(workspaceId);
    else this.inUse.set(workspaceId, used);
  }

  private busy(waitedMs: number) {
    const retryAfter = Math.max(1, Math.ceil(waitedMs / 1000));
    return new ServiceUnavailableError(
      `This workspace already has ${this.perWorkspace} requests or jobs using the database: retry shortly.`,
      retryAfter,
    );
  }
}

/** Pool methods that take a connection; calls on a transaction's connection are not counted again. */
const POOL_CALLS = new Set<string>(CONNECTION_METHODS);

async function withPermit<T>(permits: WorkspacePermits, current: Running, call: () => Promise<T>) {
  // Calls of one request or job that overlap share its permit (a transaction that also reads
  // through the pool must not wait for its own workspace's permits).
  if (current.active++ === 0) current.permit = permits.acquire(current.workspaceId, current.maxWaitMs);
  const permit = current.permit!;
  try {
    await permit;
    return await call();
  } finally {
    if (--current.active === 0) {
      current.permit = null;
      permit.then(
        () => permits.release(current.workspaceId),
        () => {},
      );
    }
  }
}

/** The pool, with each workspace limited to `perWorkspace` of its connections at once. */
export function shareByWorkspace(pool: DatabasePool, perWorkspace: number): DatabasePool {
  const permits = new WorkspacePermits(perWorkspace);
  return new Proxy(pool, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !POOL_CALLS.has(property) || typeof value !== 'function') {
        return value;
      }
      return (...args: unknown[]) => {
        const current = running.getStore();
        if (!current) return value.apply(target, args);
        return withPermit(permits, current, () => value.apply(target, args));
      };
    },
  });
}
