// The service under test, started once per run by the root hooks.

import pg from 'pg';
import { parseConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/core/context.ts';
import { freePort, startEmbeddedDatabase } from '../../src/db/embedded.ts';

export const TEST_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  WEBHOOK_RETRY_SCHEDULE: '0,1,2',
  ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_TIMEOUT_MS: '2000',
  // Deferred sends retry after a second, twice, then fail: tests see the whole schedule.
  MESSAGE_RETRY_SCHEDULE: '1,1',
  // Broadcasts of a few contacts still take several pages.
  CAMPAIGN_BROADCAST_PAGE_SIZE: '2',
  SIGNIN_MAX_FAILURES_PER_EMAIL: '5',
  SIGNIN_MAX_FAILURES_PER_IP: '1000',
  // Every test registers from 127.0.0.1; the registration limit has tests of its own (other addresses).
  REGISTRATION_MAX_PER_IP: '1000000',
  // Every test calls the public endpoints from 127.0.0.1; their limits have tests of their own.
  PUBLIC_RATE_LIMIT_PER_IP: '1000000',
  FORM_RATE_LIMIT_PER_IP: '1000000',
  // Every factory registers and signs in: two argon2id derivations each, about 70 ms apiece at
  // OWASP's 19 MiB. 64 KiB makes them well under a millisecond; test/accounts/accounts.test.ts
  // checks hashing at the real setting on a second web.
  PASSWORD_HASH_MEMORY_KIB: '64',
  // Web push goes to a local HTTPS fake push service (test/push/fakePushService.ts) and its CA.
  PUSH_ALLOW_ANY_ENDPOINT: 'true',
  PUSH_CA_FILE: new URL('../push/fixtures/ca.pem', import.meta.url).pathname,
  // Tests refresh time-window segments themselves (refreshSegments, the CLI) after ageing events
  // and refreshes; the worker's every-minute refresh could take a crossing just before the test's
  // own refresh and leave it nothing to report (1 failed run in about 30). January 1st, midnight.
  // pg-boss keeps one schedule per job in the database: every worker started on the test database
  // must carry the same setting (test/app/shutdown.test.ts), or it resets it to every minute.
  SEGMENT_REFRESH_CRON: '0 0 1 1 *',
};

/**
 * Server settings of every PostgreSQL the tests start themselves (the run's, and a service's own:
 * test/support/ownDatabase.ts). A test's data need not outlive a crash of the machine, and none of
 * them crashes PostgreSQL itself (only stops it, which writes everything out): so no fsync, commits
 * that do not wait for their WAL to reach the disk, and no full page images in the WAL, the bulk of
 * its bytes after each checkpoint. What the service starts (`npm start` in the start-up tests) keeps
 * its own, durable settings.
 */
export const TEST_CLUSTER_SETTINGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];

type Running = {
  baseUrl: string;
  databaseUrl: string;
  dataDir: string;
  context: AppContext;
  stop: () => Promise<void>;
};

let running: Running | undefined;

export function server(): Running {
  if (!running) throw new Error('the test server is not running (root hooks not loaded?)');
  return running;
}

const TEMPLATE_DATABASE = 'switchboard_test_template';

/**
 * The run's PostgreSQL, in the main process before any test file runs: started (or taken from
 * TEST_DATABASE_URL), with a template database migrated once. Processes that run tests find it
 * through the environment, which `--parallel` workers inherit.
 */
export async function startTestCluster(dataDir: string): Promise<() => Promise<void>> {
  Object.assign(process.env, TEST_ENV, { DATA_DIR: dataDir });
  const embedded = process.env.TEST_DATABASE_URL
    ? { url: process.env.TEST_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedDatabase({
        dataDir,
        port: await freePort(),
        persistent: false,
        settings: TEST_CLUSTER_SETTINGS,
      });
  const templateUrl = await createDatabase(embedded.url, TEMPLATE_DATABASE);
  const runtime = await import('../../src/app/runtime.ts');
  // Parsed, not config(): a serial run's process starts its service later in this same process,
  // once the fake Bot API has set TELEGRAM_API_ROOT, and config() would keep this parse.
  await runtime.migrateAll(templateUrl, parseConfig(process.env));
  // Clones are made from the server's own database: PostgreSQL refuses to copy a template while
  // anyone else is connected to it, another process's cloning session included.
  process.env.SWITCHBOARD_TEST_SERVER_URL = embedded.url;
  return () => embedded.stop();
}

/** A fresh database named `name` on the server of `url`: a copy of the template when given one. */
async function createDatabase(url: string, name: string, template?: string): Promise<string> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const databaseUrl = new URL(url);
  databaseUrl.pathname = `/${name}`;
  return databaseUrl.toString();
}

/** This process's own database, cloned from the template, and the service on it; once a process. */
export async function ensureServer(): Promise<void> {
  if (running) return;
  const serverUrl = process.env.SWITCHBOARD_TEST_SERVER_URL;
  if (!serverUrl) throw new Error('the test cluster is not running (root hooks not loaded?)');
  const databaseUrl = await createDatabase(serverUrl, `switchboard_test_${process.pid}`, TEMPLATE_DATABASE);
  process.env.DATABASE_URL = databaseUrl;
  // Imported only now, so that configuration is parsed from the test environment above.
  const { config } = await import('../../src/config.ts');
  const runtime = await import('../../src/app/runtime.ts');
  const context = await runtime.createContext(config(), databaseUrl, 'worker');
  const worker = await runtime.startWorker(context);
  const web = await runtime.startWeb(context, 0);
  running = {
    baseUrl: `http://127.0.0.1:${web.port}`,
    databaseUrl,
    dataDir: process.env.DATA_DIR ?? '',
    context,
    stop: async () => {
      await web.stop();
      await worker.stop();
      await runtime.closeContext(context);
    },
  };
}

export async function stopServer(): Promise<void> {
  await running?.stop();
  running = undefined;
}

export type SecondWeb = { url: string; context: AppContext; stop: () => Promise<void> };

/**
 * Another web process on the test database, as a second dyno would be; `overrides` its config,
 * `databaseUrl` may route it through a proxy (support/databaseProxy.ts).
 */
export async function startSecondWeb(
  overrides: Record<string, unknown> = {},
  databaseUrl = server().databaseUrl,
): Promise<SecondWeb> {
  const { config } = await import('../../src/config.ts');
  const runtime = await import('../../src/app/runtime.ts');
  const context = await runtime.createContext({ ...config(), ...overrides }, databaseUrl, 'web');
  const web = await runtime.startWeb(context, 0);
  return {
    url: `http://127.0.0.1:${web.port}`,
    context,
    stop: async () => {
      await web.stop();
      await runtime.closeContext(context);
    },
  };
}
