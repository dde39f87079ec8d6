// Click redirects per second through the service against a bare Express route, in one run.
//
//   npm run bench:tracking        (BENCH_SECONDS=5 BENCH_CONNECTIONS=50 BENCH_ROUNDS=5 by default)
//
// The service runs in this process as the test harness runs it (embedded PostgreSQL in a temporary
// directory, or BENCH_DATABASE_URL), with production settings and silent logs. Each request is a
// person's click on a tracked link (a browser's user agent, a message sent a minute earlier):
// the token is verified, the hit classified and stored (group commit), and the browser redirected.
// The baseline is a bare Express app that only verifies the same HMAC token and redirects. The
// load comes from a worker thread (bench/load.ts, BENCH_CONNECTIONS requests in flight). The two
// alternate in BENCH_ROUNDS rounds; the goal is judged on the median ratio (bench/support/goals.ts).
// After the runs, the worker's half is timed on its own: every stored hit classified and ingested
// as a message.click event through the events pipeline (segments, campaigns, scoring, webhooks).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import express from 'express';
import { z } from 'zod';
import { type LoadResult, listenBaseline, printTable, runLoad, startService } from './load.ts';
import { alternate, announce, benchRounds, goalLine, pairedRatios, ratioGoal } from './support/goals.ts';

type Case = { name: string; paths: string[] };
type Result = LoadResult;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = benchRounds();
const GOAL = ratioGoal('click redirects/s, ratio to bare Express', 0.5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const MESSAGES = 500;
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

function runCase(origin: string, target: Case, seconds = SECONDS): Promise<Result> {
  return runLoad(origin, { ...target, headers: { 'user-agent': CHROME }, status: 302 }, seconds, CONNECTIONS);
}

// ---- service, baseline and fixtures (main thread) ----

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
  return listenBaseline(app);
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
    announce('tracking', [GOAL], ROUNDS);
    const rounds = await alternate(
      ROUNDS,
      () => runCase(service.origin, tracked),
      () => runCase(baselineApp.origin, bare),
    );
    const rate = (r: Result) => r.requests / r.seconds;
    const middle = (results: Result[]) =>
      results.toSorted((a, b) => rate(a) - rate(b))[Math.floor(ROUNDS / 2)];
    printTable(middle(rounds.baseline), [middle(rounds.ours)], {
      seconds: SECONDS,
      connections: CONNECTIONS,
      status: 302,
    });
    console.log(`(the median round of ${ROUNDS} of each)`);
    console.log(goalLine(GOAL, pairedRatios(rounds.ours.map(rate), rounds.baseline.map(rate))));
    await drainHits(service.context, data);
  } finally {
    await baselineApp.stop();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
