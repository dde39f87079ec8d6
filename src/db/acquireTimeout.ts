// A bounded wait for a pooled connection. slonik's pool queues a caller until a connection frees
// up, however long that takes: with the database stalled every connection stays busy and requests
// hang for as long as the stall lasts. Here each call that takes a connection first takes one of as
// many slots as the pool has connections, and gives up with DatabaseTimeoutError (503) when none
// frees up within the timeout. A call refused here never reached the database, so nothing of it
// can commit after its 503.
import type { DatabasePool } from 'slonik';
import { DatabaseTimeoutError } from './unavailable.ts';

/** The pool methods that check out a connection for their duration. */
export const CONNECTION_METHODS = [
  'any',
  'anyFirst',
  'exists',
  'many',
  'manyFirst',
  'maybeOne',
  'maybeOneFirst',
  'one',
  'oneFirst',
  'query',
  'stream',
  'transaction',
  'connect',
] as const;

class Slots {
  private free: number;
  private readonly waiting: { resolve: () => void; timer: NodeJS.Timeout }[] = [];
  private readonly timeoutMs: number;

  constructor(size: number, timeoutMs: number) {
    this.free = size;
    this.timeoutMs = timeoutMs;
  }

  take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new DatabaseTimeoutError(`no database connection became free within ${this.timeoutMs} ms`));
        }, this.timeoutMs),
      };
      this.waiting.push(waiter);
    });
  }

  give(): void {
    const next = this.waiting.shift();
    if (!next) return void this.free++;
    clearTimeout(next.timer);
    next.resolve(); // the slot passes straight to the longest waiter
  }
}

/** Makes every connection-taking method of `pool` wait at most `timeoutMs` for a connection. */
export function boundConnectionWait(pool: DatabasePool, size: number, timeoutMs: number): DatabasePool {
  const slots = new Slots(size, timeoutMs);
  const bound: Record<string, unknown> = {};
  for (const method of CONNECTION_METHODS) {
    const original = (pool[method] as (...args: unknown[]) => Promise<unknown>).bind(pool);
    bound[method] = async (...args: unknown[]) => {
      await slots.take();
      try {
        return await original(...args);
      } finally {
        slots.give();
      }
    };
  }
  return Object.assign(pool, bound);
}
