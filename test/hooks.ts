// Root hooks. The run's main process starts one PostgreSQL (embedded in a fresh temporary directory,
// or TEST_DATABASE_URL) and migrates a template database once. Every process that runs test files
// (the main one, or each `--parallel` worker) then clones its own database from that template,
// starts the real service (web + worker) on it and a fake Telegram Bot API, the first time one of
// its files runs. Tests talk to it over HTTP; each test makes its own users and workspaces, so none
// need cleanup, and no two processes share a database, a queue or a schedule.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { startFakeBotApi, stopFakeBotApi } from './support/fakeBotApi.ts';
import { ensureServer, startTestCluster, stopServer } from './support/server.ts';

let stopCluster: (() => Promise<void>) | undefined;

export async function mochaGlobalSetup() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-test-'));
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  stopCluster = await startTestCluster(dataDir);
}

export async function mochaGlobalTeardown() {
  await stopServer();
  await stopFakeBotApi();
  await stopCluster?.();
}

let started: Promise<void> | undefined;

// Per-file timings for `npm test` (test/support/runSuite.ts sets TEST_TIMINGS_FILE): a file's span in
// its worker, from its first root hook to its last, and its five slowest tests, as one JSON line.
let fileStarted = 0;

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
    const line = { file: fileOf(this), pid: process.pid, start: fileStarted, end: Date.now(), slow };
    appendFileSync(timings, `${JSON.stringify(line)}\n`);
  },
  async beforeAll(this: Mocha.Context) {
    fileStarted = Date.now();
    this.timeout(120_000);
    started ??= (async () => {
      nock.disableNetConnect();
      nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host));
      await startFakeBotApi();
      await ensureServer();
    })();
    await started;
  },
};
