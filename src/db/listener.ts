// A dedicated connection that LISTENs on channels and calls back on each NOTIFY. slonik pools
// hand connections back, so LISTEN needs its own client; it reconnects after a second when the
// connection drops. `onConnect` runs once the channels are listened to (the caller catches up on
// what it may have missed); `onDisconnect` when the connection is lost (notifications may be
// missed from then on).
import pg from 'pg';
import type { Logger } from '../log.ts';

export type Listener = { close: () => Promise<void> };

export function listen(options: {
  /** Names the listener in logs. */
  name: string;
  databaseUrl: string;
  channels: readonly string[];
  log: Logger;
  /** The channel and the payload ('' when the NOTIFY carried none). */
  onNotify: (channel: string, payload: string) => void;
  onConnect: () => void;
  onDisconnect?: () => void;
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

  const lost = (next: pg.Client, error?: Error) => {
    if (client !== next) return;
    client = null;
    options.onDisconnect?.();
    if (closed) return;
    options.log.warn({ err: error, listener: options.name }, 'listener connection lost; reconnecting');
    next.end().catch(() => {});
    reconnectLater();
  };

  const connect = async () => {
    // TCP keepalive from 10 s of silence: a connection that died without a word (a partition, a NAT
    // timeout) is noticed within about a minute, not after the system's default two hours.
    const next = new pg.Client({
      connectionString: options.databaseUrl,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    next.on('notification', (message) => options.onNotify(message.channel, message.payload ?? ''));
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next));
    try {
      await next.connect();
      for (const channel of options.channels) await next.query(`listen ${pg.escapeIdentifier(channel)}`);
      if (closed) return void (await next.end());
      client = next;
      options.onConnect();
    } catch (error) {
      next.end().catch(() => {});
      // Closed while connecting (a start-up that failed right after it began): nothing to retry.
      if (closed) return;
      options.log.warn({ err: error, listener: options.name }, 'listener could not connect; retrying');
      reconnectLater();
    }
  };

  void connect();
  return {
    close: async () => {
      closed = true;
      clearTimeout(retry);
      const open = client;
      client = null;
      options.onDisconnect?.();
      await open?.end().catch(() => {});
    },
  };
}
