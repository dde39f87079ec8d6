// Root hooks: one PostgreSQL (embedded in a fresh temporary directory, or TEST_DATABASE_URL),
// migrated once, the real service (web + worker) listening on a free local port, and a fake
// Telegram Bot API the service is pointed at.
// Tests talk to it over HTTP; each test makes its own users and workspaces, so none need cleanup.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { startFakeBotApi, stopFakeBotApi } from './support/fakeBotApi.ts';
import { startServer, stopServer } from './support/server.ts';

export async function mochaGlobalSetup() {
  nock.disableNetConnect();
  nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-test-'));
  await startFakeBotApi();
  await startServer(dataDir);
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
}

export async function mochaGlobalTeardown() {
  await stopServer();
  await stopFakeBotApi();
}
