#!/usr/bin/env node
// `npm start`: the zero-setup way to run Switchboard. Uses DATABASE_URL or an embedded
// PostgreSQL under DATA_DIR, applies migrations, then runs web and worker in one process.
import { configOrExit } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import {
  closeContext,
  createContext,
  migrateAll,
  onShutdown,
  resolveDatabase,
  startWeb,
  startWorker,
} from '../src/runtime.ts';

const config = configOrExit();
const log = createLogger(config.LOG_LEVEL);
try {
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
} catch (error) {
  log.fatal({ err: error }, error instanceof Error ? error.message : 'start-up failed');
  process.exit(1);
}
