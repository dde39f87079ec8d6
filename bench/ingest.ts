// Ingest benchmark (issue 3). A workspace with 10 segments of mixed kinds, 5 scoring rules,
// 3 active event-triggered campaigns and 10,000 contacts; 50 connections post single events
// with an API key for 20 s, then the batch endpoint; beside a bare Express + pg route doing one
// INSERT per request on the same database, run in slices alternating with the single events.
// The batch endpoint runs again with each connection on its own half of the contacts (what waiting
// on the other batch's contact locks costs), and then the write floor (bench/ingestFloor.ts): the
// rows per event the batch run wrote, written through plain pg with nothing else; and the work
// floor: the same rows with the contact locks and segment reads the design requires, the bare cost
// of the same work, which the batch figure's goal is set against.
// Servers run in child processes so the load generator does not share their event loop; each run
// also prints the CPU the server and PostgreSQL spent per event.
//   npm run bench:ingest            (embedded PostgreSQL in a temporary directory)
//   BENCH_SECONDS=5 BENCH_ROUNDS=5 BENCH_DATABASE_URL=postgres://… npm run bench:ingest
// Both goals are judged on the median of BENCH_ROUNDS (≥ 5) alternating rounds
// (bench/support/goals.ts): single events against the baseline, batches against the work floor.
//   BENCH_ONLY=single|nobatch|batch skips runs (batch: only the batch-versus-floor figure);
//   BENCH_CPU_PROF=dir profiles the server.

import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool } from 'undici';
import { migrateAll } from '../src/app/runtime.ts';
import { config } from '../src/config.ts';
import { freePort, startEmbeddedDatabase } from '../src/db/embedded.ts';
import { measureWriteMix, writeFloor } from './ingestFloor.ts';
import { type Setup, setUpWorkspace } from './ingestSetup.ts';
import { alternate, announce, benchRounds, goalLine, pairedRatios, ratioGoal } from './support/goals.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const ROUNDS = benchRounds();
const SINGLE_GOAL = ratioGoal('single events/s, ratio to Express + pg (1 INSERT)', 0.5);
const BATCH_GOAL = ratioGoal('batch events/s, ratio to the work floor', 0.5);
const CONNECTIONS = 50;
const BATCH_SIZE = 1000;
const BATCH_CONCURRENCY = 2;
const SELF = fileURLToPath(import.meta.url);

type Result = {
  requests: number;
  events: number;
  seconds: number;
  latencies: number[];
  errors: number;
  cpu: CpuSeconds | null;
};

type CpuSeconds = { server: number; postgres: number };

/**
 * CPU of a process and of its children that have ended (utime, stime, cutime, cstime), in seconds
 * (Linux /proc; USER_HZ is 100 on Linux). PostgreSQL backends and autovacuum workers come and go;
 * the postmaster's cutime keeps what the ended ones used.
 */
function processCpu(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

/** CPU used so far by the server under test and by every PostgreSQL process on this machine. */
function cpuNow(serverPid: number | undefined): CpuSeconds | null {
  if (serverPid === undefined || !existsSync('/proc/self/stat')) return null;
  let postgres = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        postgres += processCpu(Number(entry));
    } catch {}
  }
  return { server: processCpu(serverPid), postgres };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : 0;
}

// The measured app runs as production does: outside production every response is also checked
// against its schema, which is test tooling, not the service's cost. Production's session cookie
// is Secure, so the workspace is set up (signed in over plain HTTP) by a development child first.
const PRODUCTION_ENV = {
  NODE_ENV: 'production',
  SESSION_SECRET: 'bench-session-secret-of-at-least-32-characters',
  // Production refuses to start without a key for secrets at rest; the bench stores none.
  ENCRYPTION_KEY: 'a'.repeat(64),
  ALLOW_PRIVATE_TARGETS: 'false',
};

type Server = { url: string; child: ChildProcess };

async function startChild(kind: 'setup' | 'app' | 'baseline', databaseUrl: string): Promise<Server> {
  const script = path.join(path.dirname(SELF), kind === 'baseline' ? 'ingestBaseline.ts' : 'ingestApp.ts');
  const production = kind === 'app' ? PRODUCTION_ENV : {};
  const env = { ...process.env, ...production, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' };
  const child = fork(script, [], { env, execArgv: childExecArgv(kind) });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** BENCH_CPU_PROF=dir writes a V8 CPU profile of the app child there (node --cpu-prof). */
function childExecArgv(kind: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir && kind === 'app' ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** `concurrency` loops, each sending one request after another until the time is up. */
async function load(
  server: Server,
  concurrency: number,
  next: (loop: number) => { path: string; body: string; events: number },
  seconds = SECONDS,
): Promise<Result> {
  const pool = new Pool(server.url, { connections: concurrency, pipelining: 1 });
  const result: Result = { requests: 0, events: 0, seconds: 0, latencies: [], errors: 0, cpu: null };
  const cpuBefore = cpuNow(server.child.pid);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async (index: number) => {
    while (performance.now() < deadline) {
      const request = next(index);
      const sent = performance.now();
      const response = await pool.request({
        method: 'POST',
        path: request.path,
        body: request.body,
        headers: { 'content-type': 'application/json' },
      });
      await response.body.text();
      if (response.statusCode === 201) {
        result.requests++;
        result.events += request.events;
        result.latencies.push(performance.now() - sent);
      } else result.errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, index) => loop(index)));
  result.seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuNow(server.child.pid);
  if (cpuBefore && cpuAfter) {
    result.cpu = {
      server: cpuAfter.server - cpuBefore.server,
      postgres: cpuAfter.postgres - cpuBefore.postgres,
    };
  }
  await pool.close();
  result.latencies.sort((a, b) => a - b);
  return result;
}

/** The runs of one case as one result. */
function combined(results: Result[]): Result {
  const cpu = results.every((result) => result.cpu)
    ? {
        server: results.reduce((sum, result) => sum + result.cpu!.server, 0),
        postgres: results.reduce((sum, result) => sum + result.cpu!.postgres, 0),
      }
    : null;
  return {
    requests: results.reduce((sum, result) => sum + result.requests, 0),
    events: results.reduce((sum, result) => sum + result.events, 0),
    seconds: results.reduce((sum, result) => sum + result.seconds, 0),
    latencies: results.flatMap((result) => result.latencies).sort((a, b) => a - b),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    cpu,
  };
}

function line(name: string, result: Result) {
  const rate = result.events / result.seconds;
  const p50 = percentile(result.latencies, 50).toFixed(1);
  const p99 = percentile(result.latencies, 99).toFixed(1);
  console.log(
    `${name.padEnd(34)} ${rate.toFixed(0).padStart(8)} events/s   p50 ${p50.padStart(6)} ms   p99 ${p99.padStart(6)} ms` +
      `   (${result.requests} requests, ${result.errors} errors)`,
  );
  if (result.cpu && result.events > 0) {
    const perEvent = (seconds: number) => ((seconds * 1000) / result.events).toFixed(3);
    console.log(
      `${''.padEnd(34)} CPU per event: server ${perEvent(result.cpu.server)} ms, PostgreSQL ${perEvent(result.cpu.postgres)} ms`,
    );
  }
  return rate;
}

function singleEvent(setup: Setup, withKey: boolean) {
  return () => {
    const event = setup.randomEvent();
    const query = withKey ? `?key=${setup.apiKey}` : '';
    return {
      path: `/api/workspaces/${setup.workspaceId}/events${query}`,
      body: JSON.stringify(event),
      events: 1,
    };
  };
}

/** Batches of random contacts; `disjoint`: each connection keeps to its own share of them. */
function batch(setup: Setup, disjoint = false) {
  return (loop: number) => ({
    path: `/api/workspaces/${setup.workspaceId}/events/batch?key=${setup.apiKey}`,
    body: JSON.stringify({
      events: Array.from({ length: BATCH_SIZE }, () =>
        disjoint ? setup.randomEventIn(loop, BATCH_CONCURRENCY) : setup.randomEvent(),
      ),
    }),
    events: BATCH_SIZE,
  });
}

/**
 * Statistics as a running service has them: autovacuum would analyze the freshly loaded tables
 * within its next rounds, and until then the planner takes the new workspace for a handful of rows
 * and scans it whole (bench/HISTORY.md). Measuring before that would measure the timing of
 * autovacuum, not the service.
 */
async function analyze(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('analyze');
  await client.end();
}

/**
 * The batch endpoint as specified (every connection on random contacts), then with each
 * connection on its own half of the contacts (what waiting for the other batch's contact locks
 * costs), then the write floor: the rows per event the first run wrote, written with nothing else;
 * and the work floor, on random contacts and on halves: those rows with the locks and reads.
 */
async function batchRuns(app: Server, setup: Setup, databaseUrl: string, base: number) {
  const { result, mix } = await measureWriteMix(databaseUrl, setup.workspaceId, () =>
    load(app, BATCH_CONCURRENCY, batch(setup)),
  );
  line(`POST …/events/batch (${BATCH_SIZE}/request), mix run`, result);
  const floor = (foreignKeys: boolean, work?: { randomContacts: boolean }) =>
    writeFloor(databaseUrl, setup.workspaceId, {
      mix,
      foreignKeys,
      connections: BATCH_CONCURRENCY,
      size: BATCH_SIZE,
      seconds: SECONDS / 2,
      work,
    });
  // The goal's pair, alternating: the batch endpoint on random contacts, then its work floor. The
  // work floor reads events, and each run adds some: alternating weighs that on both alike.
  const rounds = await alternate(
    ROUNDS,
    async () => {
      const batched = await load(app, BATCH_CONCURRENCY, batch(setup));
      return batched.events / batched.seconds;
    },
    () => floor(true, { randomContacts: true }),
    (round, { ours, baseline }) =>
      console.log(
        `  round ${round + 1}: batch ${ours.toFixed(0)} events/s, work floor ${baseline.toFixed(0)} events/s, ratio ${(ours / baseline).toFixed(2)}`,
      ),
  );
  const batched = rounds.ours.toSorted((a, b) => a - b)[Math.floor(ROUNDS / 2)];
  const work = rounds.baseline.toSorted((a, b) => a - b)[Math.floor(ROUNDS / 2)];
  // Informational, once each: what waiting on the other batch's contact locks costs, and the floors.
  const halves = line(
    '  batch, a half of contacts each',
    await load(app, BATCH_CONCURRENCY, batch(setup, true)),
  );
  const workHalves = await floor(true, { randomContacts: false });
  const withChecks = await floor(true);
  const withoutChecks = await floor(false);
  console.log(
    `write floor, rows per event: 1 event, ${mix.scoreChanges.toFixed(2)} score changes (and lead scores), ` +
      `${mix.outgoing.toFixed(2)} outgoing events, ${(mix.entered + mix.exited).toFixed(2)} membership changes, ` +
      `${mix.enrollments.toFixed(2)} enrollments`,
  );
  const rate = (events: number) => `${events.toFixed(0).padStart(8)} events/s`;
  console.log(`${'  pg only, a half of contacts each'.padEnd(34)} ${rate(withChecks)}`);
  console.log(`${'  same, no foreign-key checks'.padEnd(34)} ${rate(withoutChecks)}`);
  console.log(
    `${'work floor (locks + segment reads)'.padEnd(34)} ${rate(work)}   random contacts, median round`,
  );
  console.log(`${'  same, a half of contacts each'.padEnd(34)} ${rate(workHalves)}`);
  // What the batch endpoint ingests as a share of what this machine can write of the same rows.
  console.log(
    `batch / write floor = ${(batched / withChecks).toFixed(2)} for random contacts (median round), ` +
      `${(halves / withChecks).toFixed(2)} for disjoint contacts; batch / baseline = ${(batched / base).toFixed(1)}`,
  );
  console.log(
    `batch / work floor for disjoint contacts = ${(halves / workHalves).toFixed(2)} (one run, no goal)`,
  );
  // The bare cost of the same work (bench/ingestFloor.ts): what the service adds to it.
  console.log(goalLine(BATCH_GOAL, pairedRatios(rounds.ours, rounds.baseline)));
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-'));
  const database = process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedDatabase({ dataDir, port: await freePort(), persistent: false });
  const children: ChildProcess[] = [];
  try {
    await migrateAll(database.url, config());
    const setupChild = await startChild('setup', database.url);
    const setup = await setUpWorkspace(setupChild.url);
    await analyze(database.url);
    await stopChild(setupChild.child);
    const app = await startChild('app', database.url);
    children.push(app.child);
    const baseline = await startChild('baseline', database.url);
    children.push(baseline.child);
    announce('ingest', [SINGLE_GOAL, BATCH_GOAL], ROUNDS);
    console.log(
      `${SECONDS} s per case (baseline and single events alternating in ${ROUNDS} rounds), ${CONNECTIONS} connections; workspace: ${setup.summary}`,
    );
    // BENCH_ONLY=batch (or single) skips the other runs, for profiling one of them.
    const only = process.env.BENCH_ONLY;
    // The baseline and single events alternate in ROUNDS slices, so that the machine's speed drifting
    // during the run (it does, by ±15 % here) weighs on both alike.
    const skip = async () => null;
    const rounds = await alternate(
      ROUNDS,
      only === 'batch' ? skip : () => load(app, CONNECTIONS, singleEvent(setup, true), SECONDS / ROUNDS),
      only === undefined || only === 'nobatch'
        ? () => load(baseline, CONNECTIONS, singleEvent(setup, false), SECONDS / ROUNDS)
        : skip,
    );
    const baseRuns = rounds.baseline.filter((run) => run !== null);
    const singleRuns = rounds.ours.filter((run) => run !== null);
    const base = baseRuns.length ? line('baseline: express + pg, 1 INSERT', combined(baseRuns)) : Number.NaN;
    if (singleRuns.length) line('POST …/events (API key)', combined(singleRuns));
    if (baseRuns.length && singleRuns.length) {
      const rate = (run: Result) => run.events / run.seconds;
      console.log(goalLine(SINGLE_GOAL, pairedRatios(singleRuns.map(rate), baseRuns.map(rate))));
    }
    if (only !== 'single' && only !== 'nobatch') await batchRuns(app, setup, database.url, base);
  } finally {
    await Promise.all(children.map(stopChild));
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
