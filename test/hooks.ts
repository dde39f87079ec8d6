// Root hooks. The run's main process starts one PostgreSQL (embedded in a fresh temporary directory,
// or TEST_DATABASE_URL) and migrates a template database once. Every process that runs test files
// (the main one, or each `--parallel` worker) then clones its own database from that template,
// starts the real service (web + worker) on it and a fake Telegram Bot API, the first time one of
// its files runs. Tests talk to it over HTTP; each test makes its own users and workspaces, so none
// need cleanup, and no two processes share a database, a queue or a schedule.
import { mkdtempSync, rmSync } from 'node:fs';
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

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
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
