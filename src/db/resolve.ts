// Which PostgreSQL a process uses: DATABASE_URL, or the embedded one under DATA_DIR (started here).
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { startEmbeddedDatabase } from './embedded.ts';

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
