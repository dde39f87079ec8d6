// A TCP proxy in front of the test database, so the database can "go away" under a running pool.
import { connect, createServer, type Socket } from 'node:net';
import { server } from './server.ts';

export type ProxyMode = 'forward' | 'refuse' | 'blackhole';

/**
 * A TCP proxy in front of the test database, so the database can "go away" under a running pool:
 * `refuse` drops every connection, `blackhole` accepts connections and never answers.
 */
export async function databaseProxy() {
  const target = new URL(server().databaseUrl);
  let mode: ProxyMode = 'forward';
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (mode === 'refuse') return client.destroy();
    if (mode === 'blackhole') return;
    const upstream = connect(Number(target.port), target.hostname);
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
    sockets.add(upstream);
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
    close: () => {
      for (const socket of sockets) socket.destroy();
      proxy.close();
    },
  };
}
