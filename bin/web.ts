#!/usr/bin/env node
// The web process (Procfile `web`): HTTP only. Migrations run in the `release` phase.
import { configOrExit } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { closeContext, createContext, onShutdown, resolveDatabase, startWeb } from '../src/runtime.ts';

const config = configOrExit();
const log = createLogger(config.LOG_LEVEL, 'switchboard-web');
try {
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
} catch (error) {
  log.fatal({ err: error }, error instanceof Error ? error.message : 'start-up failed');
  process.exit(1);
}
