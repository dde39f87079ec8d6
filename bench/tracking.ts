// Click redirects per second through the service against a bare Express route, in one run.
//
//   npm run bench:tracking        (BENCH_SECONDS=10 BENCH_CONNECTIONS=50 by default)
//
// The service runs in this process as the test harness runs it (embedded PostgreSQL in a temporary
// directory, or BENCH_DATABASE_URL), with production settings and silent logs. Each request is a
// person's click on a tracked link (a browser's user agent, a message sent a minute earlier):
// the token is verified, the hit classified and stored (group commit), and the browser redirected.
// The baseline is a bare Express app that only verifies the same HMAC token and redirects. The
// load comes from a worker thread (an undici Pool, BENCH_CONNECTIONS requests in flight).
// After the runs, the worker's half is timed on its own: every stored hit classified and ingested
// as a message.click event through the events pipeline (segments, campaigns, scoring, webhooks).
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import express from 'express';
import { Pool } from 'undici';
import { z } from 'zod';

type Case = { name: string; paths: string[] };
type Result = { name: string; requests: number; errors: number; seconds: number; p50: number; p99: number };

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const MESSAGES = 500;
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

// ---- load generator (worker thread) ----

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : Number.NaN;
}

async function drive(origin: string, target: Case, seconds: number, connections: number): Promise<Result> {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const deadline = performance.now() + seconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      const path = target.paths[next++ % target.paths.length];
      const response = await pool.request({ method: 'GET', path, headers: { 'user-agent': CHROME } });
      await response.body.dump();
      if (response.statusCode !== 302) errors++;
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
    p99: percentile(sorted, 0.99),
  };
}

if (!isMainThread) {
  const { origin, target, seconds, connections } = workerData as {
    origin: string;
    target: Case;
    seconds: number;
    connections: number;
  };
  parentPort?.postMessage(await drive(origin, target, seconds, connections));
}

function runCase(origin: string, target: Case, seconds = SECONDS): Promise<Result> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { origin, target, seconds, connections: CONNECTIONS },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

// ---- service, baseline and fixtures (main thread) ----

async function startService(dataDir: string) {
  Object.assign(process.env, {
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    SESSION_SECRET: 'bench-only-session-secret-0123456789abcdef',
    ENCRYPTION_KEY: 'a'.repeat(64),
    DATA_DIR: dataDir,
  });
  const { freePort, startEmbeddedDatabase } = await import('../src/db/embedded.ts');
  const database = process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedDatabase({ dataDir, port: await freePort(), persistent: false });
  const { config } = await import('../src/config.ts');
  const runtime = await import('../src/app/runtime.ts');
  await runtime.migrateAll(database.url);
  const context = await runtime.createContext(config(), database.url, 'web');
  const web = await runtime.startWeb(context, 0);
  return {
    origin: `http://127.0.0.1:${web.port}`,
    context,
    stop: async () => {
      await web.stop();
      await runtime.closeContext(context);
      await database.stop();
    },
  };
}

type Context = Awaited<ReturnType<typeof startService>>['context'];

/** The baseline: Express verifying the same token with the same key, then redirecting. */
async function startBaseline(context: Context) {
  const { verifyClickToken } = await import('../src/messages/index.ts');
  const app = express();
  app.get('/t/c/:token', (req, res) => {
    const target = verifyClickToken(context.config, req.params.token);
    if (!target) return res.status(400).send('invalid link');
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, target.url);
  });
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

/**
 * A workspace with MESSAGES contacts, each sent one email a minute ago, and a tracked link into
 * each. The rows are written directly: the bench measures clicks, not sending.
 */
async function fixtures(context: Context) {
  const { newId } = await import('../src/db/ids.ts');
  const { sql } = await import('../src/db/pool.ts');
  const { signClickToken } = await import('../src/messages/index.ts');
  const workspaceId = newId('workspace');
  const contacts = Array.from({ length: MESSAGES }, (_, i) => ({
    id: newId('contact'),
    email: `c${i}@bench.test`,
  }));
  const messages = contacts.map((contact) => ({ id: newId('message'), contact_id: contact.id }));
  await context.db.transaction(async (tx) => {
    await tx.query(sql.typeAlias('void')`insert into workspaces (id, name) values (${workspaceId}, 'Bench')`);
    await tx.query(sql.typeAlias('void')`
      insert into contacts (workspace_id, id, email)
      select ${workspaceId}, id, email from jsonb_to_recordset(${sql.jsonb(contacts)}) as c(id text, email text)`);
    await tx.query(sql.typeAlias('void')`
      insert into messages (workspace_id, id, contact_id, channel, status, template, sent_at)
      select ${workspaceId}, id, contact_id, 'email', 'sent', '{"subject": "x", "html": "x"}', now() - interval '1 minute'
      from jsonb_to_recordset(${sql.jsonb(messages)}) as m(id text, contact_id text)`);
  });
  const paths = messages.map(
    (message, i) =>
      `/t/c/${signClickToken(context.config, message.id, `https://shop.example.com/offer/${i}?utm_source=mail#top`)}`,
  );
  const countEvents = () =>
    context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      select count(*)::int as n from events where workspace_id = ${workspaceId} and type = 'message.click'`);
  const countHits = () =>
    context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      select count(*)::int as n from message_hits where workspace_id = ${workspaceId}`);
  return { paths, countEvents, countHits };
}

function report(baseline: Result, service: Result) {
  const rate = (r: Result) => r.requests / r.seconds;
  const row = (r: Result) =>
    [
      r.name.padEnd(44),
      rate(r).toFixed(0).padStart(8),
      r.p50.toFixed(2).padStart(8),
      r.p99.toFixed(2).padStart(8),
      (rate(r) / rate(baseline)).toFixed(2).padStart(7),
      String(r.errors).padStart(7),
    ].join('  ');
  console.log(`\n${SECONDS} s per case, ${CONNECTIONS} requests in flight\n`);
  console.log(
    [
      'case'.padEnd(44),
      'req/s'.padStart(8),
      'p50 ms'.padStart(8),
      'p99 ms'.padStart(8),
      'ratio'.padStart(7),
      'non-302'.padStart(7),
    ].join('  '),
  );
  for (const result of [baseline, service]) console.log(row(result));
}

async function drainHits(context: Context, counts: Awaited<ReturnType<typeof fixtures>>) {
  const { processSettledHits } = await import('../src/tracking/process.ts');
  const { SETTLE_MS } = await import('../src/tracking/classify.ts');
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 100));
  const before = await counts.countEvents();
  const started = performance.now();
  const processed = await processSettledHits(context as never);
  const seconds = (performance.now() - started) / 1000;
  const ingested = (await counts.countEvents()) - before;
  console.log(
    `\nworker: ${processed} hits classified, ${ingested} message.click events ingested in ${seconds.toFixed(1)} s ` +
      `(${(processed / seconds).toFixed(0)} hits/s); hits stored: ${await counts.countHits()}`,
  );
}

if (isMainThread) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-'));
  const service = await startService(dataDir);
  const baselineApp = await startBaseline(service.context);
  try {
    const data = await fixtures(service.context);
    const bare: Case = { name: 'baseline: bare Express, verify + 302', paths: data.paths };
    const tracked: Case = { name: 'service: GET /t/c/{token} (hit stored)', paths: data.paths };
    await runCase(baselineApp.origin, bare, 2); // warm-up: JIT, pools, PostgreSQL caches
    await runCase(service.origin, tracked, 2);
    const baseline = await runCase(baselineApp.origin, bare);
    const result = await runCase(service.origin, tracked);
    report(baseline, result);
    await drainHits(service.context, data);
  } finally {
    await baselineApp.stop();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
