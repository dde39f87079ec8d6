// The web process: the Express app with every feature's routes and pages, listening on PORT, and
// a shutdown that lets requests in flight finish. Routes are handed over foundations first and
// mounted by specificity (src/http/app.ts); the OpenAPI order is the import order of wholeFeatures.ts.
import type { Server, ServerResponse } from 'node:http';
import type { AppContext } from '../core/context.ts';
import type { Stoppable } from '../db/resolve.ts';
import { createHttpApp } from '../http/app.ts';
import { StartupError } from '../log.ts';
import { foundationsFirst } from './features.ts';
import { installPages } from './pages.ts';
import { WHOLE_FEATURES } from './wholeFeatures.ts';

export function createApp(context: AppContext) {
  const features = foundationsFirst(WHOLE_FEATURES);
  const routes = features.flatMap((feature) => feature.routes ?? []);
  const { app, close: closeSessions } = createHttpApp(context, { routes, installPages });
  const stops = features.flatMap((feature) => (feature.webServices ?? []).map((start) => start(context)));
  const close = async () => {
    for (const stop of stops.toReversed()) await stop();
    await closeSessions();
  };
  return { app, close };
}

/**
 * Tracks responses in flight; the returned function makes each of them (and any later one) answer
 * with `Connection: close`, so a draining server is not kept open by keep-alive clients.
 */
function closeConnectionsWhenDraining(server: Server): () => void {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const close = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.on('request', (_req, res: ServerResponse) => {
    if (draining) return close(res);
    inFlight.add(res);
    res.on('close', () => inFlight.delete(res));
  });
  return () => {
    draining = true;
    for (const res of inFlight) close(res);
  };
}

/** What a failed listen means and what to set, for the usual causes; others as they are. */
function listenError(error: unknown, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new StartupError(
      `Port ${port} is in use (another Switchboard, or another program, listens on it): set PORT to a free port.`,
    );
  if (code === 'EACCES')
    return new StartupError(`Port ${port} needs privileges this user lacks: set PORT to 1024 or above.`);
  return error;
}

export async function startWeb(
  context: AppContext,
  port = context.config.PORT,
): Promise<Stoppable & { server: Server; port: number }> {
  const { app, close } = createApp(context);
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(port, (error?: Error) => (error ? reject(error) : resolve(listening)));
  }).catch(async (error: unknown) => {
    await close();
    throw listenError(error, port);
  });
  server.keepAliveTimeout = 65_000; // longer than common load balancer idle timeouts
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const closeAfterResponse = closeConnectionsWhenDraining(server);
  const stop = async () => {
    // Stop accepting, let in-flight requests finish (each then closes its connection), and drop
    // idle keep-alive connections now rather than when the client lets go of them.
    closeAfterResponse();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), context.config.SHUTDOWN_TIMEOUT_MS - 2_000);
    await closed;
    clearTimeout(timer);
    await close();
  };
  return { server, port: actualPort, stop };
}
