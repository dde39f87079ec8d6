// The SMTP sink bench/broadcast.ts sends into: accepts every message as fast as it can and counts
// it. It runs in a worker thread, so parsing SMTP does not share the event loop of whoever sends
// from the bench's own process (the raw nodemailer run); the count and the time of the last accepted
// message sit in shared memory, read by the main thread whenever it likes.
import type { AddressInfo } from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { SMTPServer } from 'smtp-server';

type Shared = { count: Int32Array; lastAt: Float64Array };

export type Sink = {
  port: number;
  /** Messages accepted so far. */
  count: () => number;
  /** When the last one was accepted (performance.timeOrigin + performance.now()). */
  lastAt: () => number;
  reset: () => void;
  close: () => Promise<number>;
};

function runSink(shared: Shared) {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // Five pooled connections live for the whole run.
    socketTimeout: 600_000,
    onData(stream, _session, callback) {
      stream.on('end', () => {
        shared.lastAt[0] = performance.timeOrigin + performance.now();
        Atomics.add(shared.count, 0, 1);
        callback(null, 'accepted');
      });
      stream.resume();
    },
  });
  server.listen(0, '127.0.0.1', () =>
    parentPort?.postMessage({ port: (server.server.address() as AddressInfo).port }),
  );
}

export async function startSink(): Promise<Sink> {
  const shared: Shared = {
    count: new Int32Array(new SharedArrayBuffer(4)),
    lastAt: new Float64Array(new SharedArrayBuffer(8)),
  };
  const worker = new Worker(new URL(import.meta.url), { workerData: shared });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (message: { port: number }) => resolve(message.port));
    worker.once('error', reject);
  });
  return {
    port,
    count: () => Atomics.load(shared.count, 0),
    lastAt: () => shared.lastAt[0],
    reset: () => {
      Atomics.store(shared.count, 0, 0);
      shared.lastAt[0] = 0;
    },
    close: () => worker.terminate(),
  };
}

if (!isMainThread) runSink(workerData as Shared);
