// A stalled database (a lock held, a server that stopped answering, every connection busy) answers
// every request 503 problem+json with Retry-After within the configured bounds: no request hangs.
import { expect } from 'chai';
import { createPool, type DatabasePool } from 'slonik';
import { sql } from '../../src/db/pool.ts';
import { databaseProxy } from '../support/databaseProxy.ts';
import { keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { type SecondWeb, server, startSecondWeb } from '../support/server.ts';

const BOUNDS = {
  DATABASE_CONNECT_TIMEOUT_MS: 500,
  DATABASE_ACQUIRE_TIMEOUT_MS: 300,
  DATABASE_STATEMENT_TIMEOUT_MS: 800,
  DATABASE_QUERY_TIMEOUT_MS: 1_500,
  DATABASE_POOL_SIZE: 2,
};

// Wider than BOUNDS: the request must still be waiting on its statement when the server freezes,
// on a machine that may be busy. Connections bounded as in BOUNDS.
const FREEZE_BOUNDS = {
  ...BOUNDS,
  DATABASE_CONNECT_TIMEOUT_MS: 1_000,
  DATABASE_STATEMENT_TIMEOUT_MS: 3_000,
  DATABASE_QUERY_TIMEOUT_MS: 4_000,
};

async function timedGet(url: string, key: string) {
  const started = Date.now();
  // A request that hangs fails here, not at the test's timeout.
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(10_000),
  });
  const body = await response.json();
  return { status: response.status, body, headers: response.headers, ms: Date.now() - started };
}

function expectUnavailable(result: Awaited<ReturnType<typeof timedGet>>, withinMs: number) {
  expect(result.status, JSON.stringify(result.body)).to.equal(503);
  expect(result.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(Number(result.headers.get('retry-after'))).to.be.at.least(1);
  expect(result.body).to.include({ status: 503, type: 'urn:switchboard:problem:unavailable' });
  expect(result.ms).to.be.below(withinMs);
}

/** The pid of the backend waiting on a lock on contacts (polled until there is one). */
async function lockWaiter(db: DatabasePool): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const pid = await db.maybeOneFirst(sql.unsafe`
      select a.pid from pg_stat_activity a join pg_locks l on l.pid = a.pid
      where not l.granted and l.relation = 'contacts'::regclass
        and l.database = (select oid from pg_database where datname = current_database()) limit 1
    `);
    if (pid !== null) return Number(pid);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no request waited on the lock');
}

describe('a stalled database', function () {
  this.timeout(30_000);
  let web: SecondWeb | undefined;
  afterEach(async () => {
    await web?.stop();
    web = undefined;
  });

  it('a held lock: requests answer 503 at the statement timeout or the connection wait, none hangs', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { key } = await keyClient(client, workspaceId, ['contacts:read']);
    web = await startSecondWeb(BOUNDS);
    const url = `${web.url}/api/workspaces/${workspaceId}/contacts`;
    expect((await timedGet(url, key)).status).to.equal(200);
    const locker = await createPool(server().databaseUrl, { maximumPoolSize: 1 });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const locking = locker.transaction(async (tx) => {
      await tx.query(sql.unsafe`lock table contacts in access exclusive mode`);
      await held;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Two take the pool's connections and wait out the statement timeout; the rest wait for one.
      const results = await Promise.all(Array.from({ length: 6 }, () => timedGet(url, key)));
      for (const result of results) expectUnavailable(result, 3_000);
    } finally {
      release();
      await locking;
      await locker.end();
    }
    expect((await timedGet(url, key)).status, 'answers again once the lock is gone').to.equal(200);
  });

  it('a server frozen mid-query (SIGSTOP): the waiting request answers 503 at the query timeout, its connection is dropped, the pool recovers', async function () {
    this.timeout(60_000); // the query timeout, the driver's 5 s close, recovery, on a busy machine
    const { client, workspaceId } = await workspaceWithAdmin();
    const { key } = await keyClient(client, workspaceId, ['contacts:read']);
    const proxy = await databaseProxy();
    const direct = await createPool(server().databaseUrl, { maxPoolSize: 2 });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locking: Promise<void> | undefined;
    try {
      web = await startSecondWeb({ ...FREEZE_BOUNDS, DATABASE_URL: proxy.url }, proxy.url);
      const url = `${web.url}/api/workspaces/${workspaceId}/contacts`;
      expect((await timedGet(url, key)).status).to.equal(200);
      // The request's query waits on a lock in the server; the server then freezes under it.
      let locked: () => void = () => {};
      const lockTaken = new Promise<void>((resolve) => {
        locked = resolve;
      });
      locking = direct.transaction(async (tx) => {
        await tx.query(sql.unsafe`lock table contacts in access exclusive mode`);
        locked();
        await held;
      });
      await lockTaken;
      const waiting = timedGet(url, key);
      const backend = await lockWaiter(direct);
      proxy.freeze();
      expectUnavailable(await waiting, FREEZE_BOUNDS.DATABASE_QUERY_TIMEOUT_MS + 2_000);
      release();
      await locking;
      // Dropped, not put back in the pool: its backend goes (the driver closes it within 5 s).
      let gone = false;
      for (let i = 0; i < 80 && !gone; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        gone = !(await direct.exists(sql.unsafe`select 1 from pg_stat_activity where pid = ${backend}`));
      }
      expect(gone, 'the connection of the unanswered query was closed').to.equal(true);
      // Still frozen: the next answers 503 too, on the pool's other connection or a new one.
      expectUnavailable(await timedGet(url, key), FREEZE_BOUNDS.DATABASE_QUERY_TIMEOUT_MS + 2_000);
      proxy.thaw();
      let status = 0;
      for (let i = 0; i < 20 && status !== 200; i++) {
        status = (await timedGet(url, key)).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(status, 'answers again once the server does').to.equal(200);
    } finally {
      release();
      await locking?.catch(() => {});
      proxy.thaw();
      await web?.stop();
      web = undefined;
      proxy.close();
      await direct.end();
    }
  });

  it('a server that stopped answering: requests answer 503 at the connect timeout', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { key } = await keyClient(client, workspaceId, ['contacts:read']);
    const proxy = await databaseProxy();
    try {
      web = await startSecondWeb({ ...BOUNDS, DATABASE_URL: proxy.url }, proxy.url);
      const url = `${web.url}/api/workspaces/${workspaceId}/contacts`;
      expect((await timedGet(url, key)).status).to.equal(200);
      proxy.setMode('blackhole');
      const results = await Promise.all(Array.from({ length: 4 }, () => timedGet(url, key)));
      for (const result of results) expectUnavailable(result, 3_000);
    } finally {
      proxy.setMode('forward'); // so the pools can close
      await web?.stop();
      web = undefined;
      proxy.close();
    }
  });
});
