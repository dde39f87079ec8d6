// A stalled database (a lock held, a server that stopped answering, every connection busy) answers
// every request 503 problem+json with Retry-After within the configured bounds: no request hangs.
import { expect } from 'chai';
import { createPool } from 'slonik';
import { sql } from '../../src/db/pool.ts';
import { databaseProxy } from '../support/databaseProxy.ts';
import { keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { type SecondWeb, server, startSecondWeb } from '../support/server.ts';

const BOUNDS = {
  DATABASE_CONNECT_TIMEOUT_MS: 500,
  DATABASE_ACQUIRE_TIMEOUT_MS: 300,
  DATABASE_STATEMENT_TIMEOUT_MS: 800,
  DATABASE_POOL_SIZE: 2,
};

async function timedGet(url: string, key: string) {
  const started = Date.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
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
