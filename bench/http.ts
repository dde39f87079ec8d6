// HTTP throughput of authenticated requests against a bare Express baseline, in one run.
//
//   npm run bench:http            (BENCH_SECONDS=5 BENCH_CONNECTIONS=32 BENCH_ROUNDS=5 by default)
//
// The service runs in this process as the test harness runs it (embedded PostgreSQL in a temporary
// directory, or BENCH_DATABASE_URL), with production settings and silent logs; the worker is not
// started, so nothing competes with the web process. Beside it, a bare Express app on the same
// database answers one trivial query per request: the baseline. The load comes from a worker
// thread (bench/load.ts: an undici Pool, a fixed number of requests in flight), so the client does
// not share the server's event loop. Every case runs for the same time, in alternating rounds
// (baseline, then each case; bench/support/goals.ts): the table gives the median round, and the
// goals (issue 29: a session costs no more than a key on the same route, and GET /api/auth/session
// reaches 0.6 of the baseline) are judged on the median of the rounds' ratios.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import express from 'express';
import { z } from 'zod';
import { type LoadResult, listenBaseline, printTable, runLoad, startService } from './load.ts';
import { alternate, announce, benchRounds, type Goal, goalLine, median, ratioGoal } from './support/goals.ts';

type Case = { name: string; path: string; headers: Record<string, string> };
type Result = LoadResult;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = benchRounds();

const SESSION_CASE = 'session: GET /api/auth/session';
const SESSION_CONTACTS = 'session: GET …/contacts';
const KEY_CONTACTS = 'key: GET …/contacts (Bearer)';
// "No more than a key": equal costs measure as a ratio scattered around 1 by a few per cent on this
// machine, so the goal allows 5 % below 1 rather than a coin toss.
const GOALS: { goal: Goal; ratio: (rates: Map<string, number>) => number }[] = [
  {
    goal: ratioGoal('session GET /api/auth/session, ratio to bare Express', 0.6),
    ratio: (rates) => rates.get(SESSION_CASE)! / rates.get('baseline')!,
  },
  {
    goal: ratioGoal('session GET …/contacts, ratio to the same with an API key', 0.95),
    ratio: (rates) => rates.get(SESSION_CONTACTS)! / rates.get(KEY_CONTACTS)!,
  },
];
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
    { name: SESSION_CASE, path: '/api/auth/session', headers: session },
    { name: 'session: GET …/members', path: `/api/workspaces/${f.workspaceId}/members`, headers: session },
  ];
  const skipped: string[] = [];
  // Key authentication needs a route that accepts keys; the foundation has none of its own.
  if (f.paths['/api/workspaces/{workspaceId}/contacts']?.get) {
    const path = `/api/workspaces/${f.workspaceId}/contacts?limit=1`;
    list.push(
      { name: KEY_CONTACTS, path, headers: { authorization: `Bearer ${f.key}`, ...BEHIND_TLS } },
      { name: SESSION_CONTACTS, path, headers: session },
    );
  } else {
    skipped.push(
      'key-protected cases skipped: GET /api/workspaces/{workspaceId}/contacts is not in this build',
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
    announce(
      'http',
      GOALS.map(({ goal }) => goal),
      ROUNDS,
    );
    await runCase(baselineApp.origin, bare, 2); // warm-up: JIT, pools, PostgreSQL caches
    for (const target of plan.cases) await runCase(service.origin, target, 2);
    const rounds = await alternate(
      ROUNDS,
      async () => {
        const results: Result[] = [];
        for (const target of plan.cases) results.push(await runCase(service.origin, target));
        return results;
      },
      () => runCase(baselineApp.origin, bare),
      (round, { ours, baseline }) =>
        console.log(
          `  round ${round + 1}: ${[baseline, ...ours].map((r) => `${(r.requests / r.seconds).toFixed(0)}/s`).join(', ')}`,
        ),
    );
    const rate = (r: Result) => r.requests / r.seconds;
    const ratesOf = (round: number) =>
      new Map([
        ['baseline', rate(rounds.baseline[round])],
        ...rounds.ours[round].map((r) => [r.name, rate(r)] as const),
      ]);
    const middle = (results: Result[]) =>
      results.toSorted((a, b) => rate(a) - rate(b))[Math.floor(results.length / 2)];
    printTable(
      middle(rounds.baseline),
      plan.cases.map((_, i) => middle(rounds.ours.map((round) => round[i]))),
      { seconds: SECONDS, connections: CONNECTIONS },
    );
    console.log(`\nthe median round of ${ROUNDS} for each case; ratios per round, then their median:`);
    for (const target of plan.cases)
      console.log(
        `  ${target.name}: ratio to baseline median ${median(rounds.ours.map((_, r) => ratesOf(r).get(target.name)! / ratesOf(r).get('baseline')!)).toFixed(2)}`,
      );
    for (const { goal, ratio } of GOALS) {
      const ratios = rounds.ours.map((_, r) => ratio(ratesOf(r)));
      if (ratios.every(Number.isFinite)) console.log(`  ${goalLine(goal, ratios)}`);
    }
  } finally {
    await baselineApp.stop();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
