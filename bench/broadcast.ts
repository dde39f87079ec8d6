// Broadcast benchmark (issue 10): a campaign with a broadcast trigger sends one email to every
// contact of a segment, into a local SMTP sink, through the real worker process (production mode)
// on the same machine. Beside it, in the same run, raw pooled nodemailer sends the same rendered
// messages into the same sink (bench/broadcastRaw.ts). Prints messages/s from activation to the
// last message the sink accepted, both figures, their ratio, and the worker's largest RSS
// (/proc/<pid>/status, every 200 ms) while it sent.
//   npm run bench:broadcast                      (100,000 contacts, embedded PostgreSQL)
//   npm run bench:broadcast -- --contacts 10000  (a quick run)
//   BENCH_DATABASE_URL=postgres://… BENCH_CPU_PROF=dir (profiles the worker) and BENCH_MEMORY=1
//   (the worker prints its RSS and heap every second) also work. The worker runs with the node
//   flags of the Procfile's `worker:` line (its heap limits), as production runs it.
// Contacts are seeded with SQL (generate_series); the channel, the segment and the campaigns are
// made through the API, and the worker computes the segment as it would any other.
// BENCH_ROUNDS (5 by default) alternating rounds, each a new campaign to the same segment sent by
// the same worker, then raw nodemailer sending that campaign's messages; the goals are judged on
// the median (bench/support/goals.ts). The worker stays up between rounds (idle during raw sends).
//   -- --curve prints the worker's RSS as the sends progress (each tenth of the audience);
//   -- --skip-raw sends through the worker alone (the 1,000,000-contact memory run:
//      `npm run bench:broadcast -- --contacts 1000000 --curve --skip-raw`, BENCH_ROUNDS=1).

import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrateAll } from '../src/app/runtime.ts';
import { SMTP_POOL_CONNECTIONS } from '../src/channels/email/transport.ts';
import { config } from '../src/config.ts';
import { freePort, startEmbeddedDatabase } from '../src/db/embedded.ts';
import { renderCampaign, sendRaw } from './broadcastRaw.ts';
import { type Sink, startSink } from './broadcastSink.ts';
import { Api } from './ingestSetup.ts';
import {
  alternate,
  announce,
  benchRounds,
  goalLine,
  memoryGoal,
  pairedRatios,
  ratioGoal,
} from './support/goals.ts';

const { values: args } = parseArgs({
  options: {
    contacts: { type: 'string', default: '100000' },
    curve: { type: 'boolean', default: false },
    'skip-raw': { type: 'boolean', default: false },
  },
});
const CONTACTS = Number(args.contacts);
const ROUNDS = benchRounds();
const RATIO_GOAL = ratioGoal('messages/s, ratio to raw pooled nodemailer', 0.7);
const RSS_GOAL = memoryGoal('worker max RSS', 300);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const SENDER = { fromEmail: 'news@bench.example', fromName: 'Bench' };
const now = () => performance.timeOrigin + performance.now();
const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The sink listens on 127.0.0.1: the operator's list of trusted relays lets the workspace use it.
const SHARED_ENV = { SMTP_ALLOWED_HOSTS: '127.0.0.1', LOG_LEVEL: 'warn' };
const PRODUCTION_ENV = {
  ...SHARED_ENV,
  NODE_ENV: 'production',
  SESSION_SECRET: 'bench-session-secret-of-at-least-32-characters',
  ENCRYPTION_KEY: 'a'.repeat(64),
};

const STEP = {
  type: 'send',
  channel: 'email',
  subject: 'Hello {{ contact.firstName | default: "there" }}, our spring news',
  body:
    '<h1>Spring news</h1><p>Hi {{ contact.firstName | default: "there" }},</p>' +
    '<p>Here is what changed at {{ workspace.name }} this month: faster exports, a new dashboard, and ' +
    'a few fixes you asked for. <a href="https://bench.example/news">Read the whole story</a>.</p>' +
    '<p>Your lead score is {{ contact.leadScore }}.</p>' +
    '<p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
};

function forkChild(script: string, env: Record<string, string>, execArgv: string[] = []) {
  return fork(path.join(HERE, script), [], {
    env: { ...process.env, ...env },
    execArgv,
    stdio: 'inherit',
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The web process for setting up (development: its session cookie is not Secure over HTTP). */
async function startSetupWeb(databaseUrl: string) {
  const child = forkChild('ingestApp.ts', { ...SHARED_ENV, DATABASE_URL: databaseUrl });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`setup server exited with ${code}`)));
  });
  return { child, api: new Api(`http://127.0.0.1:${port}`) };
}

/** The node flags of the Procfile's `worker:` line (`node <flags> bin/worker.ts`): its heap limits. */
function procfileWorkerFlags(procfile: string): string[] {
  const line = /^worker:\s*node\s+(.*?)\s*bin\/worker\.ts\s*$/m.exec(procfile);
  if (!line) throw new Error('Procfile: no `worker: node … bin/worker.ts` line');
  return line[1].split(/\s+/).filter(Boolean);
}

/**
 * bin/worker.ts as production runs it, with the Procfile's node flags; BENCH_CPU_PROF=dir writes
 * its CPU profile there, BENCH_MEMORY=1 has it print its memory every second.
 */
function startWorker(databaseUrl: string): ChildProcess {
  const dir = process.env.BENCH_CPU_PROF;
  const flags = procfileWorkerFlags(readFileSync(path.join(HERE, '../Procfile'), 'utf8'));
  const profile = dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
  const memory = process.env.BENCH_MEMORY ? ['--import', path.join(HERE, 'workerMemory.ts')] : [];
  const execArgv = [...flags, ...profile, ...memory];
  return forkChild('../bin/worker.ts', { ...PRODUCTION_ENV, DATABASE_URL: databaseUrl }, execArgv);
}

/**
 * The VmRSS of `pid` when called, and the largest seen, sampled every 200 ms until stopped; with
 * `progress` (messages accepted so far), it prints the RSS as each tenth of the audience is reached,
 * as it happens (a long run shows its curve before it ends).
 */
function sampleRss(pid: number, progress?: () => number) {
  const rss = () => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {
      return 0;
    }
  };
  const started = now();
  const first = rss();
  let max = first;
  let tenth = 1;
  const sample = () => {
    const current = rss();
    max = Math.max(max, current);
    const accepted = progress?.() ?? 0;
    for (; progress && tenth <= 10 && accepted >= (CONTACTS * tenth) / 10; tenth++) {
      const seconds = ((now() - started) / 1000).toFixed(0).padStart(5);
      process.stdout.write(
        `    ${String(tenth * 10).padStart(3)} %  ${accepted.toLocaleString('en').padStart(9)} accepted at ${seconds} s: RSS ${megabytes(current)}, largest so far ${megabytes(max)}\n`,
      );
    }
  };
  if (progress)
    process.stdout.write(`    worker RSS at activation ${megabytes(first)}; then as the sends progress:\n`);
  const timer = setInterval(sample, 200);
  return () => {
    clearInterval(timer);
    sample();
    return { first, max };
  };
}

async function query(databaseUrl: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function seedContacts(databaseUrl: string, workspaceId: string) {
  await query(
    databaseUrl,
    `insert into contacts (workspace_id, id, email, first_name, lead_score)
     select $1, 'ct_bench_' || lpad(n::text, 7, '0'), 'contact' || n || '@bench.test',
       case when n % 3 = 0 then null else 'Ada' || n end, n % 100
     from generate_series(1, $2::int) n`,
    [workspaceId, CONTACTS],
  );
}

/** The channel and the segment (computed by the worker), through the API. */
async function setUpAudience(api: Api, workspaceId: string, sinkPort: number, databaseUrl: string) {
  const base = `/api/workspaces/${workspaceId}`;
  const channel = { host: '127.0.0.1', port: sinkPort, secure: false, ...SENDER };
  await api.request('PUT', `${base}/channels/email`, channel, 200);
  const rules = { field: 'email', op: 'ends_with', value: '@bench.test' };
  const segment = await api.post(`${base}/segments`, { name: 'Everyone', rules });
  while ((await api.request('GET', `${base}/segments/${segment.id}`, undefined, 200)).status !== 'ready')
    await sleep(250);
  await query(databaseUrl, 'analyze');
  return { base, segmentId: segment.id as string };
}

/** A campaign broadcasting to the segment, made through the API (one a round). */
async function newCampaign(api: Api, audience: { base: string; segmentId: string }, round: number) {
  const trigger = { type: 'broadcast', segmentId: audience.segmentId };
  const name = `Spring news ${round + 1}`;
  const campaign = await api.post(`${audience.base}/campaigns`, { name, trigger, steps: [STEP] });
  return campaign.id as string;
}

/** Waits for `expected` accepted messages; fails when the sink's count stops moving for a minute. */
async function awaitSink(sink: Sink, expected: number, databaseUrl: string) {
  let seen = -1;
  let movedAt = now();
  while (sink.count() < expected) {
    if (sink.count() !== seen) [seen, movedAt] = [sink.count(), now()];
    if (now() - movedAt > 60_000) {
      const statuses = await query(databaseUrl, 'select status, count(*) from messages group by status');
      throw new Error(`stalled at ${seen}/${expected} accepted; messages: ${JSON.stringify(statuses)}`);
    }
    await sleep(20);
    if (process.env.BENCH_TRACE && Math.floor(now() / 1000) !== Math.floor((now() - 20) / 1000)) {
      const rows = await query(
        databaseUrl,
        `select (select count(*) from enrollments) as enrolled, (select count(*) from messages) as messages,
           (select count(*) from messages where status = 'sent') as sent`,
      );
      process.stdout.write(`  ${JSON.stringify({ ...rows[0], accepted: sink.count() })}\n`);
      if (process.env.BENCH_TRACE === 'waits') {
        const waits = await query(
          databaseUrl,
          `select coalesce(wait_event_type || ':' || wait_event, 'cpu') as wait, state, left(query, 70) as query
           from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`,
        );
        for (const row of waits) process.stdout.write(`    ${JSON.stringify(row)}\n`);
      }
    }
  }
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-broadcast-'));
  const database = process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedDatabase({ dataDir, port: await freePort(), persistent: false });
  const sink = await startSink();
  const children: ChildProcess[] = [];
  try {
    await migrateAll(database.url, config());
    const setup = await startSetupWeb(database.url);
    children.push(setup.child);
    const workspaceId = await setup.api.newWorkspace('Bench');
    await seedContacts(database.url, workspaceId);
    const worker = startWorker(database.url);
    children.push(worker);
    const audience = await setUpAudience(setup.api, workspaceId, sink.port, database.url);
    announce('broadcast', [RATIO_GOAL, RSS_GOAL], ROUNDS);
    const campaigns: string[] = [];
    const rounds = await alternate(
      ROUNDS,
      async (round) => {
        const campaignId = await newCampaign(setup.api, audience, round);
        campaigns.push(campaignId);
        sink.reset();
        const stopSampling = sampleRss(worker.pid!, args.curve ? () => sink.count() : undefined);
        const activated = now();
        await setup.api.post(`${audience.base}/campaigns/${campaignId}/activate`, undefined, 200);
        await awaitSink(sink, CONTACTS, database.url);
        const seconds = (sink.lastAt() - activated) / 1000;
        const rss = stopSampling();
        const statuses = await query(
          database.url,
          'select status, count(*)::int as n from messages where campaign_id = $1 group by status order by 1',
          [campaignId],
        );
        const counted = statuses.map((row) => `${row.status} ${row.n}`).join(', ');
        process.stdout.write(
          `  round ${round + 1} worker: ${rate(CONTACTS / seconds, seconds)}, max RSS ${megabytes(rss.max)} (${megabytes(rss.first)} at activation); messages: ${counted}\n`,
        );
        return { seconds, rss };
      },
      async (round) => {
        if (args['skip-raw']) return null;
        Object.assign(process.env, PRODUCTION_ENV);
        const rendered = await renderCampaign(database.url, campaigns[round], SENDER);
        const seconds = await sendRaw(rendered, sink, SMTP_POOL_CONNECTIONS);
        process.stdout.write(`  round ${round + 1} raw:    ${rate(CONTACTS / seconds, seconds)}\n`);
        return seconds;
      },
    );
    await stopChild(worker);
    report(rounds);
  } finally {
    await Promise.all(children.map(stopChild));
    await sink.close();
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const rate = (perSecond: number, seconds: number) =>
  `${perSecond.toFixed(0).padStart(6)} messages/s (${seconds.toFixed(1)} s)`;

function report(rounds: { ours: { seconds: number; rss: { max: number } }[]; baseline: (number | null)[] }) {
  const speed = (seconds: number) => CONTACTS / seconds;
  const raw = rounds.baseline.filter((seconds): seconds is number => seconds !== null);
  const lines = [
    `broadcast: ${CONTACTS} contacts, one email each, local SMTP sink, ${SMTP_POOL_CONNECTIONS} pooled connections, ${ROUNDS} rounds`,
  ];
  if (raw.length === rounds.ours.length)
    lines.push(
      `  ${goalLine(
        RATIO_GOAL,
        pairedRatios(
          rounds.ours.map((run) => speed(run.seconds)),
          raw.map(speed),
        ),
      )}`,
    );
  lines.push(
    `  ${goalLine(
      RSS_GOAL,
      rounds.ours.map((run) => run.rss.max / 2 ** 20),
    )}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
