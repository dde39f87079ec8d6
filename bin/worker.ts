#!/usr/bin/env node
// The worker process (Procfile `worker`): webhook delivery, scheduled and queued jobs.
import { configOrExit } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { closeContext, createContext, onShutdown, resolveDatabase, startWorker } from '../src/runtime.ts';

const config = configOrExit();
const log = createLogger(config.LOG_LEVEL, 'switchboard-worker');
try {
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
} catch (error) {
  log.fatal({ err: error }, error instanceof Error ? error.message : 'start-up failed');
  process.exit(1);
}
