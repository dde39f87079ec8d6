// A dedicated connection that LISTENs on channels and calls back on each NOTIFY. slonik pools
// hand connections back, so LISTEN needs its own client; it reconnects after a second when the
// connection drops, and calls `onConnect` so the caller can catch up on what it may have missed.
import pg from 'pg';
import type { Logger } from '../log.ts';

export type Listener = { close: () => Promise<void> };

export function listen(options: {
  databaseUrl: string;
  channels: readonly string[];
  log: Logger;
  onNotify: (channel: string) => void;
  onConnect: () => void;
}): Listener {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const reconnectLater = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, 1000);
  };

  const connect = async () => {
    const next = new pg.Client({ connectionString: options.databaseUrl });
    next.on('notification', (message) => options.onNotify(message.channel));
    next.on('error', (error) => {
      options.log.warn({ err: error }, 'webhook listener connection failed; reconnecting');
      next.end().catch(() => {});
      if (client === next) client = null;
      reconnectLater();
    });
    try {
      await next.connect();
      for (const channel of options.channels) await next.query(`listen ${pg.escapeIdentifier(channel)}`);
      if (closed) return void (await next.end());
      client = next;
      options.onConnect();
    } catch (error) {
      options.log.warn({ err: error }, 'webhook listener could not connect; retrying');
      next.end().catch(() => {});
      reconnectLater();
    }
  };

  void connect();
  return {
    close: async () => {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
      client = null;
    },
  };
}
