// Outbound webhook throughput and latency beside plain fetch POSTs, in one run.
//
//   npm run bench:webhooks        (BENCH_EVENTS=10000 BENCH_RATE=500 WEBHOOK_CONCURRENCY=64 by default)
//
// An embedded PostgreSQL in a temporary directory (or BENCH_DATABASE_URL), one workspace with two
// OUTBOUND endpoints on one local receiver. The receiver runs in a worker thread, so it does not
// share the dispatcher's event loop, and stamps each request's arrival. Each round (BENCH_ROUNDS,
// 5 by default; goals are judged on the median, bench/support/goals.ts) runs, in this order:
// - burst: BENCH_EVENTS events committed at once → 2 × BENCH_EVENTS deliveries; deliveries/s
//   from before the commit to the last receipt, and each delivery's commit → receipt latency;
// - baseline: the same number of plain fetch POSTs of the same bodies to the same receiver, with
//   WEBHOOK_CONCURRENCY requests in flight, as the dispatcher has;
// - paced: BENCH_EVENTS events at BENCH_RATE events/s, in transactions of 10; the latency from
//   each event's commit to its receipt (p50/p99) is the number that matters for users.
// BENCH_ONLY=burst runs bursts alone (for `node --cpu-prof bench/webhooks.ts`).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import {
  alternate,
  announce,
  benchRounds,
  type Goal,
  goalLine,
  pairedRatios,
  ratioGoal,
} from './support/goals.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const PACED_BATCH = 10;
const ROUNDS = benchRounds();
const BURST_ONLY = process.env.BENCH_ONLY === 'burst';
const THROUGHPUT_GOAL = ratioGoal('burst deliveries/s, ratio to plain fetch', 0.9);
const PACED_GOAL: Goal = {
  figure: 'paced commit→receipt p99',
  at: 'most',
  target: 1000,
  unit: ' ms',
  digits: 0,
};
const now = () => performance.timeOrigin + performance.now();

// ---- receiver (worker thread): answers 200 and reports (n, arrival) once `expect` are in ----

function runReceiver() {
  let expected = 0;
  let ns: number[] = [];
  let times: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = now();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      ns.push(JSON.parse(Buffer.concat(chunks).toString()).data.n);
      times.push(at);
      if (ns.length === expected) parentPort?.postMessage({ ns, times });
    });
  });
  server.keepAliveTimeout = 60_000;
  parentPort?.on('message', (message: { expect: number }) => {
    expected = message.expect;
    ns = [];
    times = [];
  });
  server.listen(0, '127.0.0.1', () =>
    parentPort?.postMessage({ port: (server.address() as AddressInfo).port }),
  );
}

// ---- main thread ----

type Receipts = { ns: number[]; times: number[] };

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

function startReceiver(): Promise<{
  worker: Worker;
  port: number;
  collect: (count: number) => Promise<Receipts>;
}> {
  const worker = new Worker(new URL(import.meta.url));
  return new Promise((resolve) => {
    worker.once('message', ({ port }: { port: number }) => {
      const collect = (count: number) => {
        worker.postMessage({ expect: count });
        return new Promise<Receipts>((done) => worker.once('message', done));
      };
      resolve({ worker, port, collect });
    });
  });
}

/** The service's modules, imported only once the environment is set (configuration reads it). */
async function loadService() {
  Object.assign(process.env, {
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    ALLOW_PRIVATE_TARGETS: 'true', // the receiver is on 127.0.0.1
    WEBHOOK_CONCURRENCY: process.env.WEBHOOK_CONCURRENCY ?? '64',
  });
  return {
    embedded: await import('../src/db/embedded.ts'),
    config: (await import('../src/config.ts')).config,
    runtime: await import('../src/app/runtime.ts'),
    sql: (await import('../src/db/pool.ts')).sql,
    emitMany: (await import('../src/outbox/emit.ts')).emitMany,
    createEndpoint: (await import('../src/webhooks/service.ts')).createEndpoint,
    startDispatcher: (await import('../src/webhooks/dispatcher.ts')).startDispatcher,
  };
}

type Service = Awaited<ReturnType<typeof loadService>>;
type Bench = Awaited<ReturnType<typeof setUp>>;

/** A database, a workspace with two endpoints on the receiver, and the dispatcher running. */
async function setUp(service: Service) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-webhooks-'));
  const { freePort, startEmbeddedDatabase } = service.embedded;
  const database = process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedDatabase({ dataDir, port: await freePort(), persistent: false });
  await service.runtime.migrateAll(database.url, service.config());
  const context = await service.runtime.createContext(service.config(), database.url, 'worker');
  const receiver = await startReceiver();
  const url = `http://127.0.0.1:${receiver.port}/hooks`;
  const workspaceId = `ws_bench_${Date.now()}`;
  await context.db.query(
    service.sql.unsafe`insert into workspaces (id, name) values (${workspaceId}, 'Bench')`,
  );
  for (const name of ['first', 'second']) {
    const input = { name, url, direction: 'OUTBOUND', active: true, signed: true } as const;
    await service.createEndpoint(context.db, context.config, workspaceId, input);
  }
  const dispatcher = await service.startDispatcher(context);
  const tearDown = async () => {
    await dispatcher.stop();
    await receiver.worker.terminate();
    await service.runtime.closeContext(context);
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { service, context, receiver, url, workspaceId, tearDown };
}

function event(bench: Bench, n: number) {
  return {
    workspaceId: bench.workspaceId,
    type: 'contact.created' as const,
    data: { contactId: `ct_${n}`, n },
  };
}

/** Waits until the previous run's bookkeeping is done, so runs do not overlap. */
async function settled(bench: Bench) {
  const { sql } = bench.service;
  while ((await bench.context.db.oneFirst(sql.unsafe`select count(*)::int from webhook_attempts`)) !== 0)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

/** EVENTS events committed at once; latency from that commit to each receipt. */
async function burst(bench: Bench): Promise<Run> {
  const done = bench.receiver.collect(EVENTS * 2);
  const started = now();
  const events = Array.from({ length: EVENTS }, (_, n) => event(bench, n));
  await bench.context.db.transaction((tx) => bench.service.emitMany(tx, events));
  const committed = now();
  const receipts = await done;
  await settled(bench);
  return {
    seconds: (Math.max(...receipts.times) - started) / 1000,
    latency: receipts.times.map((at) => at - committed),
  };
}

/** The same number of plain fetch POSTs of the same bodies, as many in flight as the dispatcher. */
async function baseline(bench: Bench): Promise<Run> {
  const done = bench.receiver.collect(EVENTS * 2);
  const bodies = Array.from({ length: EVENTS * 2 }, (_, n) =>
    JSON.stringify({
      event: 'contact.created',
      timestamp: new Date().toISOString(),
      data: { contactId: `ct_${n}`, n },
    }),
  );
  const latency: number[] = [];
  let next = 0;
  const loop = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const started = now();
      const response = await fetch(bench.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await response.text();
      latency.push(now() - started);
    }
  };
  const started = now();
  await Promise.all(Array.from({ length: bench.context.config.WEBHOOK_CONCURRENCY }, loop));
  await done;
  return { seconds: (now() - started) / 1000, latency };
}

/** RATE events/s in transactions of PACED_BATCH; latency from each one's commit to its receipt. */
async function paced(bench: Bench): Promise<Run> {
  const done = bench.receiver.collect(EVENTS * 2);
  const committedAt = new Float64Array(EVENTS);
  const started = now();
  for (let sent = 0; sent < EVENTS; sent += PACED_BATCH) {
    const due = started + (sent / RATE) * 1000;
    if (due > now()) await new Promise((resolve) => setTimeout(resolve, due - now()));
    const batch = Array.from({ length: Math.min(PACED_BATCH, EVENTS - sent) }, (_, i) =>
      event(bench, sent + i),
    );
    await bench.context.db.transaction((tx) => bench.service.emitMany(tx, batch));
    committedAt.fill(now(), sent, sent + batch.length);
  }
  const receipts = await done;
  await settled(bench);
  return {
    seconds: (Math.max(...receipts.times) - started) / 1000,
    latency: receipts.ns.map((n, i) => receipts.times[i] - committedAt[n]),
  };
}

async function main() {
  announce('webhooks', [THROUGHPUT_GOAL, PACED_GOAL], ROUNDS);
  const bench = await setUp(await loadService());
  const results = await alternate(
    ROUNDS,
    async () => ({ burst: await burst(bench), paced: BURST_ONLY ? null : await paced(bench) }),
    async () => (BURST_ONLY ? null : await baseline(bench)),
    (round, { ours, baseline }) => {
      const line =
        `  round ${round + 1}: burst ${rate(ours.burst).toFixed(0)}/s` +
        (baseline
          ? `, fetch ${rate(baseline).toFixed(0)}/s, ratio ${(rate(ours.burst) / rate(baseline)).toFixed(2)}`
          : '') +
        (ours.paced ? `, paced p99 ${percentile(ours.paced.latency, 0.99).toFixed(1)} ms` : '');
      process.stdout.write(`${line}\n`);
    },
  );
  await bench.tearDown();
  report(bench.context.config.WEBHOOK_CONCURRENCY, results);
}

type Run = { seconds: number; latency: number[] };

const rate = (run: Run) => (EVENTS * 2) / run.seconds;
const middle = (runs: Run[]) => [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)];

function report(
  concurrency: number,
  results: { ours: { burst: Run; paced: Run | null }[]; baseline: (Run | null)[] },
) {
  const bursts = results.ours.map((round) => round.burst);
  const baselines = results.baseline.filter((run): run is Run => run !== null);
  const paceds = results.ours.flatMap((round) => (round.paced ? [round.paced] : []));
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const spread = (run: Run) =>
    `p50 ${ms(percentile(run.latency, 0.5))}  p99 ${ms(percentile(run.latency, 0.99))}`;
  const lines = [
    `webhooks: ${EVENTS} events × 2 endpoints = ${EVENTS * 2} deliveries, concurrency ${concurrency}, local receiver` +
      ` (the median round of ${ROUNDS})`,
    `  burst      ${rate(middle(bursts)).toFixed(0).padStart(6)} deliveries/s (${middle(bursts).seconds.toFixed(2)} s)  commit→receipt ${spread(middle(bursts))}`,
  ];
  if (baselines.length > 0)
    lines.push(
      `  baseline   ${rate(middle(baselines)).toFixed(0).padStart(6)} fetch POSTs/s (${middle(baselines).seconds.toFixed(2)} s)  request ${spread(middle(baselines))}`,
      `  ${goalLine(THROUGHPUT_GOAL, pairedRatios(bursts.map(rate), baselines.map(rate)))}`,
    );
  if (paceds.length > 0)
    lines.push(
      `  paced      ${RATE} events/s → commit→receipt ${spread(middle(paceds))}`,
      `  ${goalLine(
        PACED_GOAL,
        paceds.map((run) => percentile(run.latency, 0.99)),
      )}`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (isMainThread) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
} else {
  runReceiver();
}
