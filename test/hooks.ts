// Root hooks. The run's main process starts one PostgreSQL (embedded in a fresh temporary directory,
// or TEST_DATABASE_URL) and migrates a template database once. Every process that runs test files
// (the main one, or each `--parallel` worker) then clones its own database from that template,
// starts the real service (web + worker) on it and a fake Telegram Bot API, the first time one of
// its files runs. Tests talk to it over HTTP; each test makes its own users and workspaces, so none
// need cleanup, and no two processes share a database, a queue or a schedule.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clusterCpu, cpuSince, meterDatabase, runningChildrenCpu, sampleCpu } from './support/cpuMeter.ts';
import { startFakeBotApi, stopFakeBotApi } from './support/fakeBotApi.ts';
import { allowLoopbackOnly } from './support/loopbackOnly.ts';
import { ensureServer, server, startTestCluster, stopServer } from './support/server.ts';

let stopCluster: (() => Promise<void>) | undefined;

export async function mochaGlobalSetup() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-test-'));
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  stopCluster = await startTestCluster(dataDir);
  // Workers read the CPU of the shared PostgreSQL's processes (test/support/cpuMeter.ts).
  const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
  try {
    process.env.TEST_POSTMASTER_PID = readFileSync(pidFile, 'utf8').split('\n')[0];
  } catch {
    // TEST_DATABASE_URL: a server of someone else's, whose processes are not measured.
  }
}

export async function mochaGlobalTeardown() {
  await stopServer();
  await stopFakeBotApi();
  // The whole cluster's CPU (background processes and every worker's backends), for the totals.
  const timings = process.env.TEST_TIMINGS_FILE;
  if (timings) appendFileSync(timings, `${JSON.stringify({ cluster: clusterCpu() })}\n`);
  await stopCluster?.();
}

let started: Promise<void> | undefined;

// Per-file timings for `npm test` (test/support/runSuite.ts sets TEST_TIMINGS_FILE): a file's span in
// its worker, from its first root hook to its last, its CPU (test/support/cpuMeter.ts) and its five
// slowest tests, as one JSON line. A file's CPU runs from the end of the one before (its modules load
// in between); a worker's start-up (its database and service) has a line of its own.
let fileStarted = 0;
let fileCpu = sampleCpu();

async function startService() {
  const before = sampleCpu();
  const wallBefore = Date.now();
  allowLoopbackOnly();
  await startFakeBotApi();
  await ensureServer();
  const timings = process.env.TEST_TIMINGS_FILE;
  if (!timings) return;
  meterDatabase(new URL(server().databaseUrl).pathname.slice(1));
  const line = { file: '(worker start-up)', pid: process.pid, start: wallBefore, end: Date.now() };
  appendFileSync(timings, `${JSON.stringify({ ...line, cpu: cpuSince(before), slow: [] })}\n`);
  // What still runs when the worker exits (its shared Chromium, killed then, never reaped by it) is
  // in no parent's CPU: it is written down here, for the run's total.
  process.once('exit', () => {
    const cpu = { own: 0, children: runningChildrenCpu(), database: 0 };
    const left = { file: '(running at worker exit)', pid: process.pid, start: Date.now(), end: Date.now() };
    appendFileSync(timings, `${JSON.stringify({ ...left, cpu, slow: [] })}\n`);
  });
}

function fileOf(context: Mocha.Context): string {
  return context.test?.parent?.suites[0]?.file ?? context.test?.parent?.tests[0]?.file ?? '?';
}

export const mochaHooks = {
  afterAll(this: Mocha.Context) {
    const timings = process.env.TEST_TIMINGS_FILE;
    if (!timings) return;
    const tests: Array<[string, number]> = [];
    const walk = (suite: Mocha.Suite) => {
      for (const t of suite.tests) tests.push([t.fullTitle(), t.duration ?? 0]);
      suite.suites.forEach(walk);
    };
    if (this.test?.parent) walk(this.test.parent);
    const slow = tests.sort((a, b) => b[1] - a[1]).slice(0, 5);
    const line = {
      file: fileOf(this),
      pid: process.pid,
      start: fileStarted,
      end: Date.now(),
      cpu: cpuSince(fileCpu),
      slow,
    };
    appendFileSync(timings, `${JSON.stringify(line)}\n`);
    // The next file's CPU starts here: loading its modules is part of it.
    fileCpu = sampleCpu();
  },
  async beforeAll(this: Mocha.Context) {
    fileStarted = Date.now();
    this.timeout(120_000);
    if (started) return started;
    started = startService();
    await started;
    fileCpu = sampleCpu();
  },
};
