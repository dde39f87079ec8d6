// A TCP proxy in front of the test database, so the database can "go away" under a running pool.
import { connect, createServer, type Socket } from 'node:net';
import { server } from './server.ts';

export type ProxyMode = 'forward' | 'refuse' | 'blackhole';

/**
 * A TCP proxy in front of the test database, so the database can "go away" under a running pool:
 * `refuse` drops every connection, `blackhole` accepts connections and never answers. `freeze()`
 * is a SIGSTOPped server: every connection, open or new, stays open and nothing passes either way
 * until `thaw()`, which delivers what was held.
 */
export async function databaseProxy() {
  const target = new URL(server().databaseUrl);
  let mode: ProxyMode = 'forward';
  let frozen = false;
  const held: { to: Socket; chunk: Buffer }[] = [];
  const sockets = new Set<Socket>();
  const relay = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => (frozen ? held.push({ to, chunk }) : to.write(chunk)));
    from.on('close', () => to.destroy());
  };
  const proxy = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (mode === 'refuse') return client.destroy();
    if (mode === 'blackhole') return;
    const upstream = connect(Number(target.port), target.hostname);
    upstream.on('error', () => client.destroy());
    relay(client, upstream);
    relay(upstream, client);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  const url = new URL(server().databaseUrl);
  url.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: url.toString(),
    setMode(next: ProxyMode) {
      mode = next;
      for (const socket of sockets) socket.destroy();
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const { to, chunk } of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      proxy.close();
    },
  };
}
