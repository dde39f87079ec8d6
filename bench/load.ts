// The load generator of the HTTP benches: a worker thread (so the client does not share the
// server's event loop) keeping a fixed number of requests in flight through an undici Pool for a
// fixed time, cycling through the case's paths, and reporting the rate and latency percentiles;
// and the service under load, started in the bench's own process.

import type { Server } from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Express } from 'express';
import { Pool } from 'undici';

export type LoadCase = {
  name: string;
  paths: string[];
  headers: Record<string, string>;
  /** Headers of each connection (its own session cookie, say), added to `headers`; cycled. */
  connectionHeaders?: Record<string, string>[];
  /** Any other status counts as an error. */
  status: number;
};
export type LoadResult = {
  name: string;
  requests: number;
  errors: number;
  seconds: number;
  p50: number;
  p95: number;
  p99: number;
};
type LoadPlan = { origin: string; target: LoadCase; seconds: number; connections: number };

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : Number.NaN;
}

async function drive({ origin, target, seconds, connections }: LoadPlan): Promise<LoadResult> {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const deadline = performance.now() + seconds * 1000;
  const loop = async (_: unknown, connection: number) => {
    const own = target.connectionHeaders?.[connection % target.connectionHeaders.length];
    const headers = { ...target.headers, ...own };
    while (performance.now() < deadline) {
      const started = performance.now();
      const path = target.paths[next++ % target.paths.length];
      const response = await pool.request({ method: 'GET', path, headers });
      // Read to the end: dump() reads 128 KiB at most and destroys the rest, so a larger body (a CSV
      // export, a download) would never finish on the server's side.
      for await (const _ of response.body);
      if (response.statusCode !== target.status) errors++;
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  return {
    name: target.name,
    requests: latencies.length,
    errors,
    seconds: elapsed,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
  };
}

if (!isMainThread && (workerData as { loadPlan?: LoadPlan })?.loadPlan) {
  parentPort?.postMessage(await drive((workerData as { loadPlan: LoadPlan }).loadPlan));
}

/** Runs one case from a worker thread of this module. */
export function runLoad(
  origin: string,
  target: LoadCase,
  seconds: number,
  connections: number,
): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { loadPlan: { origin, target, seconds, connections } },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

/** The results beside the baseline: rate, latency, ratio to the baseline, unexpected statuses. */
export function printTable(
  baseline: LoadResult,
  results: LoadResult[],
  run: { seconds: number; connections: number; status?: number },
) {
  const rate = (r: LoadResult) => r.requests / r.seconds;
  const width = Math.max(36, ...[baseline, ...results].map((r) => r.name.length));
  const line = (cells: string[]) =>
    [cells[0].padEnd(width), ...cells.slice(1).map((c, i) => c.padStart(i === 0 ? 8 : i < 3 ? 8 : 7))].join(
      '  ',
    );
  console.log(`\n${run.seconds} s per case, ${run.connections} requests in flight\n`);
  console.log(line(['case', 'req/s', 'p50 ms', 'p99 ms', 'ratio', `non-${run.status ?? 200}`]));
  for (const r of [baseline, ...results]) {
    const ratio = (rate(r) / rate(baseline)).toFixed(2);
    console.log(
      line([r.name, rate(r).toFixed(0), r.p50.toFixed(2), r.p99.toFixed(2), ratio, String(r.errors)]),
    );
  }
}

/**
 * The service's web process in this process, as the test harness runs it: production settings,
 * silent logs, an embedded PostgreSQL in `dataDir` (or BENCH_DATABASE_URL); no worker, so
 * nothing competes with the web process.
 */
export async function startService(dataDir: string, environment: Record<string, string> = {}) {
  Object.assign(process.env, {
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    SESSION_SECRET: 'bench-only-session-secret-0123456789abcdef',
    // Production refuses to start without a key for secrets at rest; the bench stores none.
    ENCRYPTION_KEY: 'a'.repeat(64),
    DATA_DIR: dataDir,
    ...environment,
  });
  const { freePort, startEmbeddedDatabase } = await import('../src/db/embedded.ts');
  const database = process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedDatabase({ dataDir, port: await freePort(), persistent: false });
  // Imported only now, so that configuration is parsed from the environment above.
  const { config } = await import('../src/config.ts');
  const runtime = await import('../src/app/runtime.ts');
  await runtime.migrateAll(database.url, config());
  const context = await runtime.createContext(config(), database.url, 'web');
  const web = await runtime.startWeb(context, 0);
  return {
    origin: `http://127.0.0.1:${web.port}`,
    databaseUrl: database.url,
    poolSize: config().DATABASE_POOL_SIZE,
    context,
    stop: async () => {
      await web.stop();
      await runtime.closeContext(context);
      await database.stop();
    },
  };
}

/** A baseline app listening on a free loopback port; `stop` closes it. */
export async function listenBaseline(app: Express) {
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const address = server.address();
  return {
    origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
