// HTTP throughput of authenticated requests against a bare Express baseline, in one run.
//
//   npm run bench:http            (BENCH_SECONDS=10 BENCH_CONNECTIONS=32 by default)
//
// The service runs in this process as the test harness runs it (embedded PostgreSQL in a temporary
// directory, or BENCH_DATABASE_URL), with production settings and silent logs; the worker is not
// started, so nothing competes with the web process. Beside it, a bare Express app on the same
// database answers one trivial query per request: the baseline. The load comes from a worker
// thread (bench/load.ts: an undici Pool, a fixed number of requests in flight), so the client does
// not share the server's event loop. Every case runs for the same time; the table gives each beside the baseline.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import express from 'express';
import { z } from 'zod';
import { type LoadResult, listenBaseline, printTable, runLoad, startService } from './load.ts';

type Case = { name: string; path: string; headers: Record<string, string> };
type Result = LoadResult;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

function runCase(origin: string, target: Case, seconds = SECONDS): Promise<Result> {
  return runLoad(origin, { ...target, paths: [target.path], status: 200 }, seconds, CONNECTIONS);
}

// ---- service, baseline and fixtures (main thread) ----

/** The baseline: Express, one slonik pool of the same size, one trivial query per request. */
async function startBaseline(databaseUrl: string, poolSize: number) {
  const { createDatabasePool, sql } = await import('../src/db/pool.ts');
  const db = await createDatabasePool(databaseUrl, { maxPoolSize: poolSize });
  const app = express();
  app.get('/bare', async (_req, res) => {
    res.json({ ok: await db.oneFirst(sql.type(z.object({ ok: z.number() }))`select 1 as ok`) });
  });
  const listening = await listenBaseline(app);
  return {
    origin: listening.origin,
    stop: async () => {
      await listening.stop();
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

if (isMainThread) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-'));
  // The bench signs in once per run from one address; keep the limiter out of the way.
  const service = await startService(dataDir, { SIGNIN_MAX_FAILURES_PER_IP: '100000' });
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
    printTable(baseline, results, { seconds: SECONDS, connections: CONNECTIONS });
  } finally {
    await baselineApp.stop();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
