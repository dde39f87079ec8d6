// HTTP throughput of authenticated requests against a bare Express baseline, in one run.
//
//   npm run bench:http            (BENCH_SECONDS=10 BENCH_CONNECTIONS=32 by default)
//
// The service runs in this process as the test harness runs it (embedded PostgreSQL in a temporary
// directory, or BENCH_DATABASE_URL), with production settings and silent logs; the worker is not
// started, so nothing competes with the web process. Beside it, a bare Express app on the same
// database answers one trivial query per request: the baseline. The load comes from a worker
// thread (an undici Pool, a fixed number of requests in flight), so the client does not share the
// server's event loop. Every case runs for the same time; the table gives each beside the baseline.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import express from 'express';
import { Pool } from 'undici';
import { z } from 'zod';

type Case = { name: string; path: string; headers: Record<string, string> };
type Result = { name: string; requests: number; errors: number; seconds: number; p50: number; p99: number };

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

// ---- load generator (worker thread) ----

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : Number.NaN;
}

async function drive(origin: string, target: Case, seconds: number, connections: number): Promise<Result> {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      const response = await pool.request({ method: 'GET', path: target.path, headers: target.headers });
      await response.body.dump();
      if (response.statusCode !== 200) errors++;
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  return {
    name: target.name,
    requests: latencies.length,
    errors,
    seconds: elapsed,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
  };
}

if (!isMainThread) {
  const { origin, target, seconds, connections } = workerData as {
    origin: string;
    target: Case;
    seconds: number;
    connections: number;
  };
  parentPort?.postMessage(await drive(origin, target, seconds, connections));
}

function runCase(origin: string, target: Case, seconds = SECONDS): Promise<Result> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { origin, target, seconds, connections: CONNECTIONS },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

// ---- service, baseline and fixtures (main thread) ----

async function startService(dataDir: string) {
  Object.assign(process.env, {
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    SESSION_SECRET: 'bench-only-session-secret-0123456789abcdef',
    // Production refuses to start without a key for secrets at rest; the bench stores none.
    ENCRYPTION_KEY: 'a'.repeat(64),
    DATA_DIR: dataDir,
    // The bench signs in once per run from one address; keep the limiter out of the way.
    SIGNIN_MAX_FAILURES_PER_IP: '100000',
  });
  const { freePort, startEmbeddedDatabase } = await import('../src/db/embedded.ts');
  const database = process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedDatabase({ dataDir, port: await freePort(), persistent: false });
  // Imported only now, so that configuration is parsed from the environment above.
  const { config } = await import('../src/config.ts');
  const runtime = await import('../src/app/runtime.ts');
  await runtime.migrateAll(database.url);
  const context = await runtime.createContext(config(), database.url, 'web');
  const web = await runtime.startWeb(context, 0);
  return {
    origin: `http://127.0.0.1:${web.port}`,
    databaseUrl: database.url,
    poolSize: config().DATABASE_POOL_SIZE,
    stop: async () => {
      await web.stop();
      await runtime.closeContext(context);
      await database.stop();
    },
  };
}

/** The baseline: Express, one slonik pool of the same size, one trivial query per request. */
async function startBaseline(databaseUrl: string, poolSize: number) {
  const { createDatabasePool, sql } = await import('../src/db/pool.ts');
  const db = await createDatabasePool(databaseUrl, { maxPoolSize: poolSize });
  const app = express();
  app.get('/bare', async (_req, res) => {
    res.json({ ok: await db.oneFirst(sql.type(z.object({ ok: z.number() }))`select 1 as ok`) });
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const address = server.address();
  return {
    origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await db.end();
    },
  };
}

// Production cookies are Secure: requests arrive as they do behind Heroku's router, which ends TLS.
const BEHIND_TLS = { 'x-forwarded-proto': 'https' };

async function call(origin: string, method: string, path: string, body: unknown, cookie = '') {
  const response = await fetch(origin + path, {
    method,
    headers: { 'content-type': 'application/json', cookie, ...BEHIND_TLS },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
  return {
    body: text ? JSON.parse(text) : undefined,
    cookie: response.headers.getSetCookie()[0]?.split(';')[0],
  };
}

/** A user with a session, a workspace, and a key with every scope, made through the API. */
async function fixtures(origin: string) {
  const credentials = { email: `bench.${Date.now()}@example.com`, password: 'bench password 123' };
  await call(origin, 'POST', '/api/auth/register', { name: 'Bench', ...credentials });
  const { cookie = '' } = await call(origin, 'POST', '/api/auth/signin', credentials);
  const workspace = await call(origin, 'POST', '/api/workspaces', { name: 'Bench' }, cookie);
  const { SCOPES } = await import('../src/http/scopes.ts');
  const key = await call(
    origin,
    'POST',
    `/api/workspaces/${workspace.body.id}/keys`,
    { name: 'bench', scopes: SCOPES },
    cookie,
  );
  const document = (await call(origin, 'GET', '/api/openapi', undefined)).body;
  return {
    cookie,
    workspaceId: workspace.body.id as string,
    key: key.body.key as string,
    paths: document.paths,
  };
}

function cases(f: Awaited<ReturnType<typeof fixtures>>): { cases: Case[]; skipped: string[] } {
  const session = { cookie: f.cookie, ...BEHIND_TLS };
  const list: Case[] = [
    { name: 'session: GET /api/auth/session', path: '/api/auth/session', headers: session },
    { name: 'session: GET …/members', path: `/api/workspaces/${f.workspaceId}/members`, headers: session },
  ];
  const skipped: string[] = [];
  // Key authentication needs a route that accepts keys; the foundation has none of its own.
  if (f.paths['/api/workspaces/{workspaceId}/contacts']?.get) {
    const path = `/api/workspaces/${f.workspaceId}/contacts?limit=1`;
    list.push({
      name: 'key: GET …/contacts (Bearer)',
      path,
      headers: { authorization: `Bearer ${f.key}`, ...BEHIND_TLS },
    });
  } else {
    skipped.push(
      'key-protected case skipped: GET /api/workspaces/{workspaceId}/contacts is not in this build',
    );
  }
  return { cases: list, skipped };
}

function report(baseline: Result, results: Result[]) {
  const rate = (r: Result) => r.requests / r.seconds;
  const row = (r: Result) =>
    [
      r.name.padEnd(36),
      rate(r).toFixed(0).padStart(8),
      r.p50.toFixed(2).padStart(8),
      r.p99.toFixed(2).padStart(8),
      (rate(r) / rate(baseline)).toFixed(2).padStart(7),
      String(r.errors).padStart(7),
    ].join('  ');
  console.log(`\n${SECONDS} s per case, ${CONNECTIONS} requests in flight\n`);
  console.log(
    [
      'case'.padEnd(36),
      'req/s'.padStart(8),
      'p50 ms'.padStart(8),
      'p99 ms'.padStart(8),
      'ratio'.padStart(7),
      'non-200'.padStart(7),
    ].join('  '),
  );
  for (const result of [baseline, ...results]) console.log(row(result));
}

if (isMainThread) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-'));
  const service = await startService(dataDir);
  const baselineApp = await startBaseline(service.databaseUrl, service.poolSize);
  try {
    const plan = cases(await fixtures(service.origin));
    for (const message of plan.skipped) console.log(message);
    const bare: Case = { name: 'baseline: bare Express + select 1', path: '/bare', headers: {} };
    await runCase(baselineApp.origin, bare, 2); // warm-up: JIT, pools, PostgreSQL caches
    for (const target of plan.cases) await runCase(service.origin, target, 2);
    const baseline = await runCase(baselineApp.origin, bare);
    const results: Result[] = [];
    for (const target of plan.cases) results.push(await runCase(service.origin, target));
    report(baseline, results);
  } finally {
    await baselineApp.stop();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
