// A client-side bound on every query of a pool. PostgreSQL's statement_timeout ends a slow statement
// on a server that still answers; a server that stopped answering altogether (SIGSTOPped, a frozen
// host, a network that drops packets) ends nothing, and a query already sent waits for as long as
// its TCP connection lives. node-postgres has `query_timeout` for this, but slonik's pg driver hands
// the pg Client only its own settings (no way to pass it), and after a timeout node-postgres leaves
// the unanswered query active on the connection, so whatever is sent next queues behind it.
//
// Here each query of the driver's connections races a timer instead. When it fires the query fails
// with DatabaseTimeoutError (503 + Retry-After) and the connection is dead: what is sent on it next
// (the ROLLBACK of the transaction it was in) fails at once instead of waiting behind the unanswered
// query, and it is destroyed, never returned to the pool; the pool opens a fresh one when asked.
import { createPgDriverFactory } from '@slonik/pg-driver';
import type { DriverClient, DriverFactory } from 'slonik';
import { DatabaseTimeoutError } from './unavailable.ts';

/** slonik's pg driver, with each query of its connections bounded to `timeoutMs`. */
export function boundedQueryDriver(timeoutMs: number): DriverFactory {
  const pgDriver = createPgDriverFactory();
  return async (setup) => {
    const driver = await pgDriver(setup);
    return { createClient: async () => boundQueries(await driver.createClient(), timeoutMs) };
  };
}

function boundQueries(client: DriverClient, timeoutMs: number): DriverClient {
  let dead: DatabaseTimeoutError | undefined;
  const destroy = async () => {
    if (!dead) return client.destroy();
    // The driver's own destroy waits up to slonik's gracefulTerminationTimeout (5 s) for the query
    // in flight before it closes the socket; the query will not answer, and the caller that gets
    // the 503 must not wait for that. Meanwhile the pool counts the connection as going away.
    client.destroy().catch(() => {});
  };
  return {
    ...client,
    query: async (text, values, options) => {
      if (dead) throw dead;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          dead = new DatabaseTimeoutError(`the database did not answer a query within ${timeoutMs} ms`);
          reject(dead);
        }, timeoutMs);
      });
      try {
        return await Promise.race([client.query(text, values, options), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    release: () => (dead ? destroy() : client.release()),
    destroy,
  };
}
