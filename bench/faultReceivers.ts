// What bench/faults.ts delivers to, in the bench's own process (never the one it kills): a webhook
// receiver counting each `webhook-id` per endpoint path, a receiver that accepts requests and never
// answers, and an SMTP sink counting each X-Switchboard-Message-ID.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type Receipt = { count: number; firstAt: number; n: number | undefined; run: string | undefined };

export type WebhookReceiver = {
  url: (name: string) => string;
  /** Per endpoint path: webhook-id → how often it came, when first, and the event's metadata.n. */
  byPath: Map<string, Map<string, Receipt>>;
  close: () => Promise<void>;
};

function receipts(byPath: Map<string, Map<string, Receipt>>, name: string) {
  const map = byPath.get(name) ?? new Map<string, Receipt>();
  byPath.set(name, map);
  return map;
}

async function listen(server: Server): Promise<number> {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function closer(server: Server) {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const byPath = new Map<string, Map<string, Receipt>>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      const id = String(req.headers['webhook-id']);
      const map = receipts(byPath, (req.url ?? '').split('/').pop() ?? '');
      const seen = map.get(id);
      if (seen) seen.count++;
      else {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        const metadata = body.data?.metadata;
        map.set(id, { count: 1, firstAt: at, n: metadata?.n, run: metadata?.run });
      }
    });
  });
  const port = await listen(server);
  return { url: (name) => `http://127.0.0.1:${port}/hooks/${name}`, byPath, close: closer(server) };
}

/** Accepts every request and never answers it. */
export async function startHangingReceiver() {
  const server = createServer(() => {});
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/hang`, close: closer(server) };
}

export type SmtpSink = {
  port: number;
  byMessageId: Map<string, number>;
  /** performance.now() of each message received. */
  arrivals: number[];
  /** Connections that ended in a socket error (a sender killed mid-message resets its connection). */
  connectionErrors: string[];
  close: () => Promise<void>;
};

export async function startSmtpSink(): Promise<SmtpSink> {
  const byMessageId = new Map<string, number>();
  const arrivals: number[] = [];
  const connectionErrors: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 1000,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('latin1');
        const headers = raw.slice(0, raw.indexOf('\r\n\r\n'));
        const id = /^X-Switchboard-Message-ID:\s*(\S+)/im.exec(headers)?.[1] ?? 'missing';
        byMessageId.set(id, (byMessageId.get(id) ?? 0) + 1);
        arrivals.push(performance.now());
        callback(null, 'queued');
      });
    },
  });
  // SMTPServer re-emits every connection's socket error on itself: unheard, a worker killed
  // mid-broadcast (its connection reset, `read ECONNRESET`) would crash the bench. A killed sender
  // is what scenario 2b does, so the sink notes it and goes on.
  server.on('error', (error: Error) => connectionErrors.push(error.message));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    byMessageId,
    arrivals,
    connectionErrors,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
