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
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
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
  median,
  pairedRatios,
  ratioGoal,
} from './support/goals.ts';
import {
  markWork,
  postmasterPid,
  readStatements,
  type Statement,
  statementLines,
  topLevel,
  type Work,
  workSince,
} from './support/work.ts';

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
// BENCH_EXPLAIN=file: PostgreSQL logs the plan, with row counts, timings and triggers (foreign-key
// checks), of every statement slower than BENCH_EXPLAIN_MS (20 ms) into that file (auto_explain).
const EXPLAIN_LOG = process.env.BENCH_EXPLAIN;
const explainSettings = EXPLAIN_LOG
  ? [
      'session_preload_libraries=auto_explain',
      `auto_explain.log_min_duration=${Number(process.env.BENCH_EXPLAIN_MS ?? 20)}`,
      'auto_explain.log_analyze=on',
      'auto_explain.log_triggers=on',
      'auto_explain.log_buffers=on',
    ]
  : [];
const now = () => performance.timeOrigin + performance.now();

// ---- receiver (worker thread): answers 200 and reports (n, arrival) once `expect` are in ----

function runReceiver() {
  let expected = 0;
  let ns: number[] = [];
  let times: number[] = [];
  let cpuAtStart = process.threadCpuUsage();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = now();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      ns.push(JSON.parse(Buffer.concat(chunks).toString()).data.n);
      times.push(at);
      if (ns.length === expected) {
        // This thread's CPU, so the main thread's figure can leave the receiver's work out.
        const cpu = process.threadCpuUsage(cpuAtStart);
        parentPort?.postMessage({ ns, times, cpuSeconds: (cpu.user + cpu.system) / 1e6 });
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  parentPort?.on('message', (message: { expect: number }) => {
    expected = message.expect;
    cpuAtStart = process.threadCpuUsage();
    ns = [];
    times = [];
  });
  server.listen(0, '127.0.0.1', () =>
    parentPort?.postMessage({ port: (server.address() as AddressInfo).port }),
  );
}

// ---- main thread ----

type Receipts = { ns: number[]; times: number[]; cpuSeconds: number };

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
    : await startEmbeddedDatabase({
        dataDir,
        port: await freePort(),
        persistent: false,
        settings: [
          'shared_preload_libraries=pg_stat_statements',
          'pg_stat_statements.track=all',
          ...explainSettings,
        ],
        ...(EXPLAIN_LOG ? { log: (line: string) => appendFileSync(EXPLAIN_LOG, `${line}\n`) } : {}),
      });
  await service.runtime.migrateAll(database.url, service.config());
  const context = await service.runtime.createContext(service.config(), database.url, 'worker');
  const statementsCounted = await context.db
    .query(service.sql.unsafe`create extension if not exists pg_stat_statements`)
    .then(() => true)
    .catch(() => false);
  const postmaster = process.env.BENCH_DATABASE_URL ? null : postmasterPid(path.join(dataDir, 'pg'));
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
  return { service, context, receiver, url, workspaceId, tearDown, postmaster, statementsCounted };
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

/** What pg_stat_statements counted since its last reset, the bench's own queries left out. */
function statements(bench: Bench, reset: boolean): Promise<Statement[]> {
  if (!bench.statementsCounted) return Promise.resolve([]);
  const leaveOut = ['select count(*)::int from webhook_attempts%'];
  return readStatements(bench.context.databaseUrl, { leaveOut, reset });
}

/** EVENTS events committed at once; latency from that commit to each receipt, and the work after it. */
async function burst(bench: Bench): Promise<Run> {
  const done = bench.receiver.collect(EVENTS * 2);
  const started = now();
  const events = Array.from({ length: EVENTS }, (_, n) => event(bench, n));
  await bench.context.db.transaction((tx) => bench.service.emitMany(tx, events));
  await statements(bench, true);
  const committed = now();
  const mark = markWork(bench.postmaster);
  const receipts = await done;
  await settled(bench);
  const work = workSince(mark, bench.postmaster);
  const last = Math.max(...receipts.times);
  return {
    seconds: (last - started) / 1000,
    secondsFromCommit: (last - committed) / 1000,
    latency: receipts.times.map((at) => at - committed),
    work: { ...work, processSeconds: work.processSeconds - receipts.cpuSeconds },
    statements: await statements(bench, false),
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
  const mark = markWork(bench.postmaster);
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
  const receipts = await done;
  const work = workSince(mark, bench.postmaster);
  return {
    seconds: (now() - started) / 1000,
    latency,
    work: { ...work, processSeconds: work.processSeconds - receipts.cpuSeconds },
  };
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
        ` (${rateFromCommit(ours.burst).toFixed(0)}/s from the commit)` +
        (baseline
          ? `, fetch ${rate(baseline).toFixed(0)}/s, ratio ${(rate(ours.burst) / rate(baseline)).toFixed(2)}` +
            ` (${(rateFromCommit(ours.burst) / rate(baseline)).toFixed(2)} from the commit)`
          : '') +
        (ours.paced ? `, paced p99 ${percentile(ours.paced.latency, 0.99).toFixed(1)} ms` : '');
      const work = [`    burst: ${workLine(ours.burst)}`];
      if (baseline?.work) work.push(`    fetch: ${workLine(baseline)}`);
      process.stdout.write(`${line}\n${work.join('\n')}\n`);
    },
  );
  await bench.tearDown();
  report(bench.context.config.WEBHOOK_CONCURRENCY, results);
}

type Run = {
  seconds: number;
  /** A burst's, from the commit of its events: the dispatcher's time alone, without the ingest's. */
  secondsFromCommit?: number;
  latency: number[];
  work?: Work;
  statements?: Statement[];
};

/** Microseconds of CPU per delivery, the statements and the idle share, for one line. */
function workLine(run: Run): string {
  if (!run.work) return '';
  const perDelivery = (seconds: number) => ((seconds * 1e6) / (EVENTS * 2)).toFixed(0);
  const parts = [
    `worker ${perDelivery(run.work.processSeconds)} µs`,
    `PostgreSQL ${perDelivery(run.work.postgresSeconds)} µs CPU/delivery`,
  ];
  if (run.statements && run.statements.length > 0) {
    const calls = topLevel(run.statements, 'calls');
    const ms = topLevel(run.statements, 'ms');
    parts.push(
      `${(calls / (EVENTS * 2)).toFixed(3)} statements`,
      `${((ms * 1000) / (EVENTS * 2)).toFixed(0)} µs executing/delivery`,
    );
  }
  parts.push(`event loop idle ${(run.work.idleShare * 100).toFixed(0)} %`);
  return parts.join(', ');
}

const rate = (run: Run) => (EVENTS * 2) / run.seconds;
const rateFromCommit = (run: Run) => (EVENTS * 2) / (run.secondsFromCommit ?? run.seconds);
const middle = (runs: Run[]) => [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)];

/** The median over the rounds of each per-delivery work figure. */
function medianWork(runs: Run[]): string {
  const works = runs.flatMap((run) => (run.work ? [run.work] : []));
  if (works.length === 0) return '';
  const mid = (values: number[]) => median(values);
  const statementRuns = runs.filter((run) => run.statements && run.statements.length > 0);
  return `(median of ${works.length}) ${workLine({
    seconds: 0,
    latency: [],
    work: {
      processSeconds: mid(works.map((work) => work.processSeconds)),
      postgresSeconds: mid(works.map((work) => work.postgresSeconds)),
      idleShare: mid(works.map((work) => work.idleShare)),
    },
    statements:
      statementRuns.length > 0
        ? [
            {
              calls: mid(statementRuns.map((run) => topLevel(run.statements!, 'calls'))),
              ms: mid(statementRuns.map((run) => topLevel(run.statements!, 'ms'))),
              query: '',
              toplevel: true,
            },
          ]
        : [],
  })}`;
}

/** The median and range of the bursts' rates from their commit over the baselines'. */
function fromCommitRatios(bursts: readonly Run[], baselines: readonly Run[]): string {
  const ratios = pairedRatios(bursts.map(rateFromCommit), baselines.map(rate));
  const sorted = [...ratios].sort((a, b) => a - b);
  return `median ${median(ratios).toFixed(2)}× (${sorted[0].toFixed(2)}×–${sorted.at(-1)?.toFixed(2)}×)`;
}

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
    `  work       ${medianWork(bursts)}`,
    '  statements of the median round, by execution time:',
    ...statementLines(middle(bursts).statements ?? [], EVENTS * 2, 'delivery'),
  ];
  if (baselines.length > 0)
    lines.push(
      `  baseline   ${rate(middle(baselines)).toFixed(0).padStart(6)} fetch POSTs/s (${middle(baselines).seconds.toFixed(2)} s)  request ${spread(middle(baselines))}`,
      `  ${goalLine(THROUGHPUT_GOAL, pairedRatios(bursts.map(rate), baselines.map(rate)))}`,
      `  (not the goal) the same ratio with the burst timed from the commit of its events: ${fromCommitRatios(bursts, baselines)}`,
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
