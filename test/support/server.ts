// The service under test, started once per run by the root hooks.
import { freePort, startEmbeddedDatabase } from '../../src/db/embedded.ts';
import type { AppContext } from '../../src/http/context.ts';

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
  // Web push goes to a local HTTPS fake push service (test/push/fakePushService.ts) and its CA.
  PUSH_ALLOW_ANY_ENDPOINT: 'true',
  PUSH_CA_FILE: new URL('../push/fixtures/ca.pem', import.meta.url).pathname,
  // Tests refresh time-window segments themselves (refreshSegments, the CLI) after ageing events
  // and refreshes; the worker's every-minute refresh could take a crossing just before the test's
  // own refresh and leave it nothing to report (1 failed run in about 30). January 1st, midnight.
  // pg-boss keeps one schedule per job in the database: every worker started on the test database
  // must carry the same setting (test/foundation/shutdown.test.ts), or it resets it to every minute.
  SEGMENT_REFRESH_CRON: '0 0 1 1 *',
};

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

export async function startServer(dataDir: string): Promise<void> {
  Object.assign(process.env, TEST_ENV, { DATA_DIR: dataDir });
  const embedded = process.env.TEST_DATABASE_URL
    ? { url: process.env.TEST_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedDatabase({ dataDir, port: await freePort(), persistent: false });
  process.env.DATABASE_URL = embedded.url;
  // Imported only now, so that configuration is parsed from the test environment above.
  const { config } = await import('../../src/config.ts');
  const runtime = await import('../../src/app/runtime.ts');
  await runtime.migrateAll(embedded.url);
  const context = await runtime.createContext(config(), embedded.url, 'worker');
  const worker = await runtime.startWorker(context);
  const web = await runtime.startWeb(context, 0);
  running = {
    baseUrl: `http://127.0.0.1:${web.port}`,
    databaseUrl: embedded.url,
    dataDir,
    context,
    stop: async () => {
      await web.stop();
      await worker.stop();
      await runtime.closeContext(context);
      await embedded.stop();
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
