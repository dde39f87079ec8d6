// Process wiring shared by bin/: database (DATABASE_URL or embedded), context, web server,
// worker, and graceful shutdown on SIGTERM/SIGINT.
import { readFileSync } from 'node:fs';
import type { Server, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { limitPasswordHashing } from './accounts/hashingQueue.ts';
import { registerStepQueue } from './campaigns/stepQueue.ts';
import { shutdown as closeChannels } from './channels/feature.ts';
import type { Config } from './config.ts';
import { startEmbeddedDatabase } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { createDatabasePool } from './db/pool.ts';
import { isDatabaseUnavailable } from './db/unavailable.ts';
import { shareByWorkspace } from './db/workspaceShare.ts';
import { createApp } from './http/app.ts';
import type { AppContext } from './http/context.ts';
import type { Boss } from './jobs/boss.ts';
import { createBoss } from './jobs/boss.ts';
import { allJobs, allWorkerServices, createQueues } from './jobs/registry.ts';
import { createLogger, type Logger } from './log.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const VERSION: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

export type Stoppable = { stop: () => Promise<void> };

export async function resolveDatabase(config: Config, log: Logger): Promise<{ url: string } & Stoppable> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, stop: async () => {} };
  const embedded = await startEmbeddedDatabase({
    dataDir: config.DATA_DIR,
    port: config.EMBEDDED_PG_PORT,
    log: (message) => log.debug({ postgres: message.trim() }, 'embedded postgres'),
  });
  return embedded;
}

/** Applies SQL migrations and installs or upgrades the pg-boss schema. */
export async function migrateAll(databaseUrl: string): Promise<string[]> {
  const applied = await migrate(databaseUrl);
  const boss = createBoss(databaseUrl, 'cli');
  await boss.start();
  await boss.stop({ graceful: false });
  return applied;
}

export async function createContext(
  config: Config,
  databaseUrl: string,
  role: 'web' | 'worker' | 'cli',
  log = createLogger(config.LOG_LEVEL),
): Promise<AppContext> {
  const pool = await createDatabasePool(databaseUrl, {
    maxPoolSize: config.DATABASE_POOL_SIZE,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_MS,
  });
  limitPasswordHashing({ concurrency: config.PASSWORD_HASH_CONCURRENCY, queue: config.PASSWORD_HASH_QUEUE });
  const db = shareByWorkspace(pool, config.WORKSPACE_POOL_SHARE);
  const boss = createBoss(databaseUrl, role, config.JOB_SUPERVISE_SECONDS);
  // A restart or failover of the database is expected now and then: pg-boss reconnects by itself.
  boss.on('error', (error) =>
    isDatabaseUnavailable(error)
      ? log.warn({ err: error }, 'pg-boss: database connection lost; reconnecting')
      : log.error({ err: error }, 'pg-boss error'),
  );
  await boss.start();
  releaseStepQueue.set(boss, registerStepQueue(boss));
  const context: AppContext = { db, config, log, boss, version: VERSION, databaseUrl };
  await createQueues(context);
  return context;
}

const releaseStepQueue = new WeakMap<Boss, () => void>();

export async function closeContext(context: AppContext): Promise<void> {
  releaseStepQueue.get(context.boss)?.();
  await closeChannels();
  await context.boss.stop({ graceful: true, timeout: context.config.SHUTDOWN_TIMEOUT_MS, close: true });
  await context.db.end();
}

/**
 * Tracks responses in flight; the returned function makes each of them (and any later one) answer
 * with `Connection: close`, so a draining server is not kept open by keep-alive clients.
 */
function closeConnectionsWhenDraining(server: Server): () => void {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const close = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.on('request', (_req, res: ServerResponse) => {
    if (draining) return close(res);
    inFlight.add(res);
    res.on('close', () => inFlight.delete(res));
  });
  return () => {
    draining = true;
    for (const res of inFlight) close(res);
  };
}

export async function startWeb(
  context: AppContext,
  port = context.config.PORT,
): Promise<Stoppable & { server: Server; port: number }> {
  const { app, close } = createApp(context);
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(port, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  server.keepAliveTimeout = 65_000; // longer than common load balancer idle timeouts
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const closeAfterResponse = closeConnectionsWhenDraining(server);
  const stop = async () => {
    // Stop accepting, let in-flight requests finish (each then closes its connection), and drop
    // idle keep-alive connections now rather than when the client lets go of them.
    closeAfterResponse();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), context.config.SHUTDOWN_TIMEOUT_MS - 2_000);
    await closed;
    clearTimeout(timer);
    await close();
  };
  return { server, port: actualPort, stop };
}

export async function startWorker(context: AppContext): Promise<Stoppable> {
  for (const job of allJobs()) {
    await context.boss.work(job.name, job.work ?? {}, (jobs) => job.handler(context, jobs));
    if (job.schedule) await context.boss.schedule(job.name, job.schedule.cron, job.schedule.data ?? {});
  }
  const services: Stoppable[] = [];
  for (const service of allWorkerServices()) services.push(await service.start(context));
  return {
    stop: async () => {
      await Promise.all(services.map((service) => service.stop()));
      for (const job of allJobs()) await context.boss.offWork(job.name, { wait: true });
    },
  };
}

/** Runs `stop` once on SIGTERM/SIGINT, then exits; a second signal or the timeout forces exit. */
export function onShutdown(log: Logger, timeoutMs: number, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error('shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop()
      .then(() => {
        log.info('stopped');
        process.exit(0);
      })
      .catch((error) => {
        log.error({ err: error }, 'error while stopping');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}
