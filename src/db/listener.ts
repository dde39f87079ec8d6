// A dedicated connection that LISTENs on channels and calls back on each NOTIFY. slonik pools
// hand connections back, so LISTEN needs its own client; it reconnects after a second when the
// connection drops. `onConnect` runs once the channels are listened to (the caller catches up on
// what it may have missed); `onDisconnect` when the connection is lost (notifications may be
// missed from then on). `subscribe` shares one such connection between the subscribers of a
// process on the same database (the web process's API-key and session caches).
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

type Subscriber = {
  channels: readonly string[];
  onNotify: (channel: string, payload: string) => void;
  onConnect: () => void;
  onDisconnect?: () => void;
};

/** One LISTEN connection per database for the subscribers of a process (see `subscribe`). */
class SharedListener {
  private readonly subscribers = new Set<Subscriber>();
  private readonly channels = new Set<string>();
  private listener: Listener | null = null;
  private connected = false;

  private readonly databaseUrl: string;
  private readonly log: Logger;

  constructor(databaseUrl: string, log: Logger) {
    this.databaseUrl = databaseUrl;
    this.log = log;
  }

  add(subscriber: Subscriber): void {
    this.subscribers.add(subscriber);
    const known = this.channels.size;
    for (const channel of subscriber.channels) this.channels.add(channel);
    if (this.listener && this.channels.size === known) {
      if (this.connected) subscriber.onConnect();
      return;
    }
    // A channel more: listen anew on all of them (everyone hears a disconnect, then a connect).
    void this.listener?.close();
    this.listener = listen({
      name: `notifications (${[...this.channels].join(', ')})`,
      databaseUrl: this.databaseUrl,
      channels: [...this.channels],
      log: this.log,
      onNotify: (channel, payload) => {
        for (const each of this.subscribers)
          if (each.channels.includes(channel)) each.onNotify(channel, payload);
      },
      onConnect: () => {
        this.connected = true;
        for (const each of this.subscribers) each.onConnect();
      },
      onDisconnect: () => {
        this.connected = false;
        for (const each of this.subscribers) each.onDisconnect?.();
      },
    });
  }

  /** Removes the subscriber; the last one closes the connection (a later subscriber opens anew). */
  async remove(subscriber: Subscriber): Promise<void> {
    if (!this.subscribers.delete(subscriber)) return;
    subscriber.onDisconnect?.();
    if (this.subscribers.size > 0) return;
    if (shared.get(this.databaseUrl) === this) shared.delete(this.databaseUrl);
    const listener = this.listener;
    this.listener = null;
    this.connected = false;
    await listener?.close();
  }
}

const shared = new Map<string, SharedListener>();

/**
 * Like `listen`, but every subscriber of this process on the same database shares one connection
 * (the web process's caches: a LISTEN connection each would hold one more per cache).
 */
export function subscribe(options: Parameters<typeof listen>[0]): Listener {
  let hub = shared.get(options.databaseUrl);
  if (!hub) {
    hub = new SharedListener(options.databaseUrl, options.log);
    shared.set(options.databaseUrl, hub);
  }
  const subscriber: Subscriber = { ...options };
  hub.add(subscriber);
  const joined = hub;
  return { close: () => joined.remove(subscriber) };
}
