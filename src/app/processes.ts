// The three long-running processes, one function each for bin/: web (HTTP only; migrations run in
// the `release` phase), worker (jobs and the webhook dispatcher), and start (the zero-setup way:
// DATABASE_URL or an embedded PostgreSQL under DATA_DIR, migrations, then web and worker together).
import { type Config, configOrExit, configWarnings } from '../config.ts';
import { resolveDatabase } from '../db/resolve.ts';
import { createLogger, type Logger, StartupError } from '../log.ts';
import { startBanner } from './banner.ts';
import { closeContext, createContext, migrateAll } from './context.ts';
import { onShutdown } from './lifecycle.ts';
import { startWorker } from './worker.ts';

/**
 * The web process's modules (every feature whole: routes, pages, console sections), loaded by the
 * processes that serve HTTP only: the worker runs jobs and services and loads each feature's
 * background alone (src/app/features.ts), not modules and memory it would hold for nothing.
 */
const loadWeb = () => import('./web.ts');

/** Each part a start-up started registers how to stop it; they stop newest first. */
type Started = { add: (stop: () => Promise<void>) => void };

type Start = (config: Config, log: Logger, databaseUrl: string, started: Started) => Promise<Announce>;
type Announce = (log: Logger) => void;

/** One readable line for a failure that explains itself; the stack for anything unforeseen. */
function logStartupFailure(log: Logger, error: unknown): void {
  if (error instanceof StartupError) log.fatal(error.message);
  else
    log.fatal({ err: error }, `start-up failed: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * Resolves the database, starts what `start` starts, and announces it. On SIGTERM or SIGINT, and on
 * a start-up failure, everything started so far stops, newest first, the embedded PostgreSQL last:
 * a failed start leaves nothing running (the server runs in a process group of its own, so nothing
 * else would stop it). A failure then exits with 1.
 */
async function runProcess(name: string | undefined, start: Start): Promise<void> {
  const config = configOrExit();
  const log = createLogger(config.LOG_LEVEL, name, config.LOG_FORMAT);
  for (const warning of configWarnings(process.env)) log.warn(warning);
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.toReversed()) await stop();
  };
  try {
    const database = await resolveDatabase(config, log);
    stops.push(database.stop);
    // Handlers before the rest starts: Ctrl-C while migrating must stop the database too, and
    // whoever waits for the announcement may send SIGTERM at once.
    onShutdown(log, config.SHUTDOWN_TIMEOUT_MS, stopAll);
    const announce = await start(config, log, database.url, { add: (stop) => stops.push(stop) });
    announce(log);
  } catch (error) {
    logStartupFailure(log, error);
    await stopWithin(stopAll, config.SHUTDOWN_TIMEOUT_MS).catch((stopError: unknown) =>
      log.error({ err: stopError }, 'error while stopping after the failed start'),
    );
    process.exit(1);
  }
}

function stopWithin(stop: () => Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`stopping took over ${ms} ms`)), ms);
  });
  return Promise.race([stop(), timeout]).finally(() => clearTimeout(timer));
}

export function runWeb(): Promise<void> {
  return runProcess('switchboard-web', async (config, log, databaseUrl, started) => {
    const context = await createContext(config, databaseUrl, 'web', log);
    started.add(() => closeContext(context));
    const { startWeb } = await loadWeb();
    const web = await startWeb(context);
    started.add(web.stop);
    return () => log.info({ port: web.port }, `Switchboard web listening on http://localhost:${web.port}`);
  });
}

export function runWorker(): Promise<void> {
  return runProcess('switchboard-worker', async (config, log, databaseUrl, started) => {
    const context = await createContext(config, databaseUrl, 'worker', log);
    started.add(() => closeContext(context));
    const worker = await startWorker(context);
    started.add(worker.stop);
    return () => log.info('Switchboard worker started');
  });
}

export function runStart(): Promise<void> {
  return runProcess(undefined, async (config, log, databaseUrl, started) => {
    await migrateAll(databaseUrl, config);
    const context = await createContext(config, databaseUrl, 'worker', log);
    started.add(() => closeContext(context));
    const worker = await startWorker(context);
    started.add(worker.stop);
    const { startWeb } = await loadWeb();
    const web = await startWeb(context);
    started.add(web.stop);
    return () => {
      log.info(
        { port: web.port, embedded: !config.DATABASE_URL },
        `Switchboard listening on http://localhost:${web.port}`,
      );
      if (config.LOG_FORMAT === 'pretty') process.stdout.write(startBanner(config, web.port));
    };
  });
}
