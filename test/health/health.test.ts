import type { Server } from 'node:http';
import { expect } from 'chai';
import { createApp } from '../../src/app/web.ts';
import { createDatabasePool } from '../../src/db/pool.ts';
import { Client } from '../support/client.ts';
import { databaseProxy, type ProxyMode } from '../support/databaseProxy.ts';
import { expectProblem } from '../support/factories.ts';
import { ISO_MS } from '../support/helpers.ts';
import { server } from '../support/server.ts';

/** The real app with its query pool behind the proxy; answers GET /api/health with its duration. */
async function healthWhenDatabase(mode: ProxyMode) {
  const proxy = await databaseProxy();
  const db = await createDatabasePool(proxy.url, { maxPoolSize: 2 });
  const { app, close } = createApp({ ...server().context, db });
  const http = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const address = http.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  try {
    expect((await fetch(`${base}/api/health`)).status, 'healthy before the database goes away').to.equal(200);
    proxy.setMode(mode);
    const started = Date.now();
    const response = await fetch(`${base}/api/health`);
    return { status: response.status, body: await response.json(), ms: Date.now() - started };
  } finally {
    http.close();
    await close();
    proxy.close();
    // Not awaited: ending a pool whose server vanished waits out its connection timeout.
    db.end().catch(() => {});
  }
}

describe('health', () => {
  it('answers 200 ok with a timestamp and the package version', async () => {
    const response = await new Client().get('/api/health');
    expect(response.status).to.equal(200);
    expect(response.body.status).to.equal('ok');
    expect(response.body.timestamp).to.match(ISO_MS);
    expect(response.body.version).to.equal('0.1.0');
    expect(response.headers.get('cache-control')).to.equal('no-store');
    expect(response.headers.get('x-request-id')).to.be.a('string');
  });

  it('answers unknown /api routes with a problem+json 404', async () => {
    expectProblem(await new Client().get('/api/nothing-here'), 404);
  });

  it('answers 503 with status "error" when nothing listens where the database should be', async () => {
    const result = await healthWhenDatabase('refuse');
    expect(result.status).to.equal(503);
    expect(result.body).to.include({ status: 'error', version: '0.1.0' });
    expect(result.body.timestamp).to.match(ISO_MS);
  });

  it('answers 503 within about 3 seconds when the database accepts connections but never answers', async () => {
    const result = await healthWhenDatabase('blackhole');
    expect(result.status).to.equal(503);
    expect(result.body.status).to.equal('error');
    expect(result.ms).to.be.below(3_500);
  });
});
