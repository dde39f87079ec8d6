// After-commit callbacks for slonik transactions. Work that must only happen once a
// transaction's rows are visible (waking the webhook worker) registers here; it runs right
// after COMMIT, never after a rollback. Outside a transaction (autocommit) it runs at once.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabasePool } from 'slonik';

type Callback = (pool: DatabasePool) => void;
type Pending = { pool: DatabasePool; callbacks: Set<Callback> };

const current = new AsyncLocalStorage<Pending>();

/** Runs `callback` after the current transaction commits; outside one, at once on `autocommitPool`. */
export function afterCommit(callback: Callback, autocommitPool: DatabasePool | null): void {
  const pending = current.getStore();
  if (pending) pending.callbacks.add(callback);
  else if (autocommitPool) callback(autocommitPool);
}

/** Makes `pool.transaction` run registered callbacks after the outermost transaction commits. */
export function runCallbacksAfterCommit(pool: DatabasePool): DatabasePool {
  const transaction = pool.transaction.bind(pool);
  const wrapped: DatabasePool['transaction'] = async (handler, retryLimit) => {
    if (current.getStore()) return transaction(handler, retryLimit);
    const pending: Pending = { pool, callbacks: new Set() };
    // A retried transaction starts over, so callbacks from a rolled-back try are dropped.
    const result = await current.run(pending, () =>
      transaction((tx) => {
        pending.callbacks.clear();
        return handler(tx);
      }, retryLimit),
    );
    for (const callback of pending.callbacks) callback(pool);
    return result;
  };
  return Object.assign(pool, { transaction: wrapped });
}
