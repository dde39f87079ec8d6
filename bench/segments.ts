// Time-window segment refresh at scale. One workspace with 1,000,000 contacts and 10,000,000 events
// over the last 60 days (seeded with generate_series) and three segments whose rules read the clock;
// the scheduled refresh (src/segments/refresh.ts) beside one hand-written SQL statement computing
// the same memberships, on the same database in the same run, then the latency of a small
// concurrent single-event ingest load alone and during refreshes (their contact locks must not
// stall it).
//   npm run bench:segments                                     (embedded PostgreSQL, temporary)
//   npm run bench:segments -- --contacts 100000 --events 1000000 --ingest-seconds 5
// The goal (a scheduled refresh, as a minute after the last, ≤ 2× the statement) is judged on the
// median of BENCH_ROUNDS (≥ 5) alternating rounds of the two (bench/support/goals.ts).
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool } from 'undici';
import { createApiKey } from '../src/apiKeys/service.ts';
import { closeContext, createContext, migrateAll } from '../src/app/runtime.ts';
import { config } from '../src/config.ts';
import { freePort, startEmbeddedDatabase } from '../src/db/embedded.ts';
import { refreshBudget, refreshSegments } from '../src/segments/jobs.ts';
import type { Rule } from '../src/segments/rules.ts';
import { insertSegments, seed } from './segmentsSeed.ts';
import { alternate, announce, benchRounds, type Goal, goalLine, pairedRatios } from './support/goals.ts';

const { values: args } = parseArgs({
  options: {
    contacts: { type: 'string', default: '1000000' },
    events: { type: 'string', default: '10000000' },
    'ingest-seconds': { type: 'string', default: '10' },
    'ingest-connections': { type: 'string', default: '4' },
  },
});
const CONTACTS = Number(args.contacts);
const EVENTS = Number(args.events);
const INGEST_SECONDS = Number(args['ingest-seconds']);
const INGEST_CONNECTIONS = Number(args['ingest-connections']);
const WORKSPACE = 'ws_bench_segments';
const ROUNDS = benchRounds();
const GOAL: Goal = {
  figure: 'scheduled refresh (a minute after the last), time over the statement',
  at: 'most',
  target: 2,
  unit: '×',
};

/** The segments, and the hand-written SQL for each (contact ids of its members). */
const SEGMENTS: { name: string; rules: Rule; members: string }[] = [
  {
    name: 'Engaged: 3+ page views in 7 days',
    rules: { event: 'page_view', within: 'P7D', count: { gte: 3 } },
    members: `select contact_id from events where workspace_id = $1 and type = 'page_view'
      and occurred_at >= now() - interval '7 days' group by contact_id having count(*) >= 3`,
  },
  {
    name: 'Bought in 30 days',
    rules: { event: 'purchase', within: 'P30D' },
    members: `select distinct contact_id from events where workspace_id = $1 and type = 'purchase'
      and occurred_at >= now() - interval '30 days'`,
  },
  {
    name: 'Signed up, no login in 14 days',
    rules: { all: [{ event: 'signup' }, { not: { event: 'login', within: 'P14D' } }] },
    members: `select contact_id from events where workspace_id = $1 and type = 'signup'
      except select contact_id from events where workspace_id = $1 and type = 'login'
      and occurred_at >= now() - interval '14 days'`,
  },
];

const segmentId = (index: number) => `seg_bench_${index}`;

/** One statement: every (segment, contact) membership the rules give now. */
const HAND_WRITTEN = SEGMENTS.map(
  (segment, index) =>
    `select '${segmentId(index)}' as segment_id, contact_id from (${segment.members}) as m${index}`,
).join(' union all ');

async function timed<T>(work: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { seconds: (performance.now() - started) / 1000, value };
}

/** Rows of the hand-written memberships missing from the table, and table rows it does not give. */
async function mismatches(client: pg.Client): Promise<number> {
  const { rows } = await client.query(
    `with h as (${HAND_WRITTEN}), m as (select segment_id, contact_id from segment_memberships where workspace_id = $1)
     select (select count(*) from (select * from h except select * from m) as a)
          + (select count(*) from (select * from m except select * from h) as b) as n`,
    [WORKSPACE],
  );
  return Number(rows[0].n);
}

/**
 * The scheduled job after a day without refreshes, under its budget per run
 * (SEGMENT_REFRESH_ROWS_PER_WORKSPACE): runs until every segment is refreshed through the time it
 * started. Returns the runs it took.
 */
async function catchUpInRuns(client: pg.Client, run: () => Promise<unknown>): Promise<number> {
  const { rows } = await client.query<{ now: string }>(
    `update segments set refreshed_through = now() - interval '1 day' where workspace_id = $1 returning now()::text as now`,
    [WORKSPACE],
  );
  for (let runs = 1; runs <= 100; runs++) {
    await run();
    const behind = await client.query(
      `select 1 from segments where workspace_id = $1 and (refreshed_through < $2::timestamptz or refresh_cursor is not null)`,
      [WORKSPACE, rows[0].now],
    );
    if (behind.rowCount === 0) return runs;
  }
  throw new Error('the refresh did not catch up in 100 runs');
}

type Latencies = { sorted: number[]; errors: number };

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : 0;

/** Single events on random contacts from a few connections until `until` resolves. */
async function ingestWhile(url: string, apiKey: string, until: Promise<unknown>): Promise<Latencies> {
  const pool = new Pool(url, { connections: INGEST_CONNECTIONS, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let done = false;
  until.finally(() => {
    done = true;
  });
  const loop = async () => {
    while (!done) {
      const email = `c${1 + Math.floor(Math.random() * CONTACTS)}@example.com`;
      const sent = performance.now();
      const response = await pool.request({
        method: 'POST',
        path: `/api/workspaces/${WORKSPACE}/events?key=${apiKey}`,
        body: JSON.stringify({ type: Math.random() < 0.7 ? 'page_view' : 'login', email }),
        headers: { 'content-type': 'application/json' },
      });
      await response.body.text();
      if (response.statusCode === 201) latencies.push(performance.now() - sent);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: INGEST_CONNECTIONS }, loop));
  await pool.close();
  return { sorted: latencies.sort((a, b) => a - b), errors };
}

/** The machine is shared: every figure is printed with the load average it was measured under. */
const load = () => `load average ${loadavg()[0].toFixed(1)}`;

function latencyLine(name: string, result: Latencies) {
  const ms = (p: number) => percentile(result.sorted, p).toFixed(1).padStart(7);
  console.log(
    `${name.padEnd(46)} p50 ${ms(50)} ms  p99 ${ms(99)} ms  max ${ms(100)} ms  (${result.sorted.length} events, ${result.errors} errors, ${load()})`,
  );
}

async function startApp(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ingestApp.ts');
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    SESSION_SECRET: 'bench-session-secret-of-at-least-32-characters',
    ENCRYPTION_KEY: 'a'.repeat(64),
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
  };
  const child = fork(script, [], { env });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`app exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-'));
  const database = process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedDatabase({ dataDir, port: await freePort(), persistent: false });
  const client = new pg.Client({ connectionString: database.url });
  let app: ChildProcess | undefined;
  try {
    await migrateAll(database.url, config());
    await client.connect();
    const seeded = await seed(client, database.url, {
      workspaceId: WORKSPACE,
      contacts: CONTACTS,
      events: EVENTS,
      days: 60,
    });
    console.log(
      `${CONTACTS.toLocaleString('en')} contacts, ${EVENTS.toLocaleString('en')} events over 60 days, seeded in ${seeded.total.toFixed(0)} s ` +
        `(contacts ${seeded.contacts.toFixed(0)} s, events and their indexes ${seeded.events.toFixed(0)} s, vacuum and analyze ${seeded.vacuum.toFixed(0)} s)`,
    );
    const context = await createContext({ ...config(), LOG_LEVEL: 'warn' }, database.url, 'cli');
    await insertSegments(
      context,
      WORKSPACE,
      SEGMENTS.map((segment, index) => ({ id: segmentId(index), ...segment })),
    );
    const whole = { rows: Infinity, ms: Infinity, pageSize: context.config.SEGMENT_COMPUTE_PAGE_SIZE };
    const refresh = () => refreshSegments(context, WORKSPACE, whole);
    const statement = () => client.query(`select count(*) from (${HAND_WRITTEN}) as h`, [WORKSPACE]);
    const line = (name: string, seconds: number, base: number) =>
      console.log(
        `${name.padEnd(46)} ${seconds.toFixed(2).padStart(8)} s   ${(seconds / base).toFixed(2)}× the statement  (${load()})`,
      );

    const sql1 = await timed(statement);
    console.log(
      `${'hand-written statement (all memberships)'.padEnd(46)} ${sql1.seconds.toFixed(2).padStart(8)} s   ${sql1.value.rows[0].count} memberships  (${load()})`,
    );
    const first = await timed(refresh);
    line('refresh, whole pass (no earlier refresh)', first.seconds, sql1.seconds);
    console.log(`  memberships differing from the statement: ${await mismatches(client)}`);
    const sql2 = await timed(statement);
    console.log(`${'hand-written statement again'.padEnd(46)} ${sql2.seconds.toFixed(2).padStart(8)} s`);
    // The faster of the two: the ratios must not flatter the refresh with a cold or crowded run.
    const base = Math.min(sql1.seconds, sql2.seconds);
    for (const gap of ['1 minute', '1 hour', '1 day']) {
      // As if the last refresh ran this long ago: the events that crossed an edge since then.
      await client.query(
        `update segments set refreshed_through = now() - $2::interval where workspace_id = $1`,
        [WORKSPACE, gap],
      );
      const run = await timed(refresh);
      const moved = run.value.reduce((sum, result) => sum + result.entered.length + result.exited.length, 0);
      line(`refresh, last one ${gap} ago (${moved} moves)`, run.seconds, base);
    }
    announce('segments', [GOAL], ROUNDS);
    const rounds = await alternate(
      ROUNDS,
      async () => {
        await client.query(
          `update segments set refreshed_through = now() - interval '1 minute' where workspace_id = $1`,
          [WORKSPACE],
        );
        return (await timed(refresh)).seconds;
      },
      async () => (await timed(statement)).seconds,
      (round, { ours, baseline }) =>
        console.log(
          `  round ${round + 1}: refresh ${ours.toFixed(2)} s, statement ${baseline.toFixed(2)} s (${load()})`,
        ),
    );
    console.log(goalLine(GOAL, pairedRatios(rounds.ours, rounds.baseline)));
    const budget = refreshBudget(context.config);
    const catchUp = await timed(() =>
      catchUpInRuns(client, () => refreshSegments(context, WORKSPACE, budget)),
    );
    line(
      `a day behind, in scheduled runs (${catchUp.value} of ${budget.rows.toLocaleString('en')} contacts)`,
      catchUp.seconds,
      base,
    );
    console.log(`  memberships differing from the statement: ${await mismatches(client)}`);

    const started = await startApp(database.url);
    app = started.child;
    const { key } = await createApiKey(context.db, WORKSPACE, {
      name: 'bench',
      scopes: ['events:write'],
      createdBy: null,
    });
    const idle = new Promise((resolve) => setTimeout(resolve, INGEST_SECONDS * 1000));
    latencyLine(`ingest alone, ${INGEST_CONNECTIONS} connections`, await ingestWhile(started.url, key, idle));
    await client.query(`update segments set refreshed_through = null where workspace_id = $1`, [WORKSPACE]);
    const pass = timed(refresh);
    latencyLine('ingest during a whole-pass refresh', await ingestWhile(started.url, key, pass));
    line('  (that whole pass, under the ingest load)', (await pass).seconds, base);
    const repeated = (async () => {
      const until = performance.now() + INGEST_SECONDS * 1000;
      let runs = 0;
      while (performance.now() < until) {
        await client.query(
          `update segments set refreshed_through = now() - interval '1 minute' where workspace_id = $1`,
          [WORKSPACE],
        );
        await refresh();
        runs++;
      }
      return runs;
    })();
    latencyLine(
      'ingest during back-to-back scheduled refreshes',
      await ingestWhile(started.url, key, repeated),
    );
    console.log(`  (${await repeated} refreshes, each as after a minute)`);
    console.log(`  memberships differing from the statement: ${await mismatches(client)}`);
    await closeContext(context);
  } finally {
    app?.kill('SIGTERM');
    await client.end().catch(() => {});
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
