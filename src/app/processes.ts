// The three long-running processes, one function each for bin/: web (HTTP only; migrations run in
// the `release` phase), worker (jobs and the webhook dispatcher), and start (the zero-setup way:
// DATABASE_URL or an embedded PostgreSQL under DATA_DIR, migrations, then web and worker together).
import { configOrExit } from '../config.ts';
import { resolveDatabase } from '../db/resolve.ts';
import { createLogger, type Logger } from '../log.ts';
import { closeContext, createContext, migrateAll } from './context.ts';
import { onShutdown } from './lifecycle.ts';
import { startWeb } from './web.ts';
import { startWorker } from './worker.ts';

async function startOrExit(log: Logger, start: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (error) {
    log.fatal({ err: error }, error instanceof Error ? error.message : 'start-up failed');
    process.exit(1);
  }
}

export async function runWeb(): Promise<void> {
  const config = configOrExit();
  const log = createLogger(config.LOG_LEVEL, 'switchboard-web');
  await startOrExit(log, async () => {
    const database = await resolveDatabase(config, log);
    const context = await createContext(config, database.url, 'web', log);
    const web = await startWeb(context);
    // Handlers first: whoever waits for the line below may send SIGTERM at once.
    onShutdown(log, config.SHUTDOWN_TIMEOUT_MS, async () => {
      await web.stop();
      await closeContext(context);
      await database.stop();
    });
    log.info({ port: web.port }, `Switchboard web listening on http://localhost:${web.port}`);
  });
}

export async function runWorker(): Promise<void> {
  const config = configOrExit();
  const log = createLogger(config.LOG_LEVEL, 'switchboard-worker');
  await startOrExit(log, async () => {
    const database = await resolveDatabase(config, log);
    const context = await createContext(config, database.url, 'worker', log);
    const worker = await startWorker(context);
    // Handlers first: whoever waits for the line below may send SIGTERM at once.
    onShutdown(log, config.SHUTDOWN_TIMEOUT_MS, async () => {
      await worker.stop();
      await closeContext(context);
      await database.stop();
    });
    log.info('Switchboard worker started');
  });
}

export async function runStart(): Promise<void> {
  const config = configOrExit();
  const log = createLogger(config.LOG_LEVEL);
  await startOrExit(log, async () => {
    const database = await resolveDatabase(config, log);
    await migrateAll(database.url);
    const context = await createContext(config, database.url, 'worker', log);
    const worker = await startWorker(context);
    const web = await startWeb(context);
    // Handlers first: whoever waits for the line below may send SIGTERM at once.
    onShutdown(log, config.SHUTDOWN_TIMEOUT_MS, async () => {
      await web.stop();
      await worker.stop();
      await closeContext(context);
      await database.stop();
    });
    log.info(
      { port: web.port, embedded: !config.DATABASE_URL },
      `Switchboard listening on http://localhost:${web.port}`,
    );
  });
}
