// Graceful shutdown of a process on SIGTERM/SIGINT.
import type { Logger } from '../log.ts';

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
