// The three long-running processes, one function each for bin/: web (HTTP only; migrations run in
// the `release` phase), worker (jobs and the webhook dispatcher), and start (the zero-setup way:
// DATABASE_URL or an embedded PostgreSQL under DATA_DIR, migrations, then web and worker together).
import { type Config, configOrExit } from '../config.ts';
import { resolveDatabase } from '../db/resolve.ts';
import { createLogger, type Logger } from '../log.ts';
import { closeContext, createContext, migrateAll } from './context.ts';
import { onShutdown } from './lifecycle.ts';
import { startWeb } from './web.ts';
import { startWorker } from './worker.ts';

type Running = { stop: () => Promise<void>; announce: (log: Logger) => void };

/**
 * Resolves the database, starts what `start` starts, stops it (then the database) on SIGTERM or
 * SIGINT, and announces it; a start-up failure is logged and exits with 1.
 */
async function runProcess(
  name: string | undefined,
  start: (config: Config, log: Logger, databaseUrl: string) => Promise<Running>,
): Promise<void> {
  const config = configOrExit();
  const log = createLogger(config.LOG_LEVEL, name);
  try {
    const database = await resolveDatabase(config, log);
    const running = await start(config, log, database.url);
    // Handlers first: whoever waits for the announcement may send SIGTERM at once.
    onShutdown(log, config.SHUTDOWN_TIMEOUT_MS, async () => {
      await running.stop();
      await database.stop();
    });
    running.announce(log);
  } catch (error) {
    log.fatal({ err: error }, error instanceof Error ? error.message : 'start-up failed');
    process.exit(1);
  }
}

export function runWeb(): Promise<void> {
  return runProcess('switchboard-web', async (config, log, databaseUrl) => {
    const context = await createContext(config, databaseUrl, 'web', log);
    const web = await startWeb(context);
    return {
      stop: async () => {
        await web.stop();
        await closeContext(context);
      },
      announce: () =>
        log.info({ port: web.port }, `Switchboard web listening on http://localhost:${web.port}`),
    };
  });
}

export function runWorker(): Promise<void> {
  return runProcess('switchboard-worker', async (config, log, databaseUrl) => {
    const context = await createContext(config, databaseUrl, 'worker', log);
    const worker = await startWorker(context);
    return {
      stop: async () => {
        await worker.stop();
        await closeContext(context);
      },
      announce: () => log.info('Switchboard worker started'),
    };
  });
}

export function runStart(): Promise<void> {
  return runProcess(undefined, async (config, log, databaseUrl) => {
    await migrateAll(databaseUrl);
    const context = await createContext(config, databaseUrl, 'worker', log);
    const worker = await startWorker(context);
    const web = await startWeb(context);
    return {
      stop: async () => {
        await web.stop();
        await worker.stop();
        await closeContext(context);
      },
      announce: () =>
        log.info(
          { port: web.port, embedded: !config.DATABASE_URL },
          `Switchboard listening on http://localhost:${web.port}`,
        ),
    };
  });
}
