// What the broadcast benches share (bench/broadcast.ts, bench/broadcastProgress.ts): the child
// processes (the setup web process, the worker as the Procfile runs it), the seeded contacts, the
// segment and channel made through the API, a campaign a round, and the wait for the sink.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateAll } from '../../src/app/runtime.ts';
import { config } from '../../src/config.ts';
import { freePort, startEmbeddedDatabase } from '../../src/db/embedded.ts';
import { type Sink, startSink } from '../broadcastSink.ts';
import { Api } from '../ingestSetup.ts';
import { postmasterPid } from './work.ts';

const BENCH = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const SENDER = { fromEmail: 'news@bench.example', fromName: 'Bench' };

// The sink listens on 127.0.0.1: the operator's list of trusted relays lets the workspace use it.
export const SHARED_ENV = { SMTP_ALLOWED_HOSTS: '127.0.0.1', LOG_LEVEL: 'warn' };
export const PRODUCTION_ENV = {
  ...SHARED_ENV,
  NODE_ENV: 'production',
  SESSION_SECRET: 'bench-session-secret-of-at-least-32-characters',
  ENCRYPTION_KEY: 'a'.repeat(64),
};

export const STEP = {
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

export function forkChild(script: string, env: Record<string, string>, execArgv: string[] = []) {
  return fork(path.join(BENCH, script), [], {
    env: { ...process.env, ...env },
    execArgv,
    stdio: 'inherit',
  });
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The web process for setting up (development: its session cookie is not Secure over HTTP). */
export async function startSetupWeb(databaseUrl: string) {
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
export function startWorker(databaseUrl: string): ChildProcess {
  const dir = process.env.BENCH_CPU_PROF;
  const flags = procfileWorkerFlags(readFileSync(path.join(BENCH, '../Procfile'), 'utf8'));
  const profile = dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
  const memory = process.env.BENCH_MEMORY ? ['--import', path.join(BENCH, 'workerMemory.ts')] : [];
  const execArgv = [...flags, ...profile, ...memory];
  return forkChild('../bin/worker.ts', { ...PRODUCTION_ENV, DATABASE_URL: databaseUrl }, execArgv);
}

export async function query(databaseUrl: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

export async function seedContacts(databaseUrl: string, workspaceId: string, contacts: number) {
  await query(
    databaseUrl,
    `insert into contacts (workspace_id, id, email, first_name, lead_score)
     select $1, 'ct_bench_' || lpad(n::text, 7, '0'), 'contact' || n || '@bench.test',
       case when n % 3 = 0 then null else 'Ada' || n end, n % 100
     from generate_series(1, $2::int) n`,
    [workspaceId, contacts],
  );
}

/** The channel and the segment (computed by the worker), through the API. */
export async function setUpAudience(api: Api, workspaceId: string, sinkPort: number, databaseUrl: string) {
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
export async function newCampaign(api: Api, audience: { base: string; segmentId: string }, round: number) {
  const trigger = { type: 'broadcast', segmentId: audience.segmentId };
  const name = `Spring news ${round + 1}`;
  const campaign = await api.post(`${audience.base}/campaigns`, { name, trigger, steps: [STEP] });
  return campaign.id as string;
}

/** Waits for `expected` accepted messages; fails when the sink's count stops moving for a minute. */
export async function awaitSink(sink: Sink, expected: number, databaseUrl: string) {
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

export type BroadcastBench = {
  databaseUrl: string;
  sink: Sink;
  api: Api;
  workspaceId: string;
  worker: ChildProcess;
  audience: { base: string; segmentId: string };
  /** The embedded server's postmaster (its CPU is read from /proc), null on BENCH_DATABASE_URL. */
  postmaster: number | null;
};

/**
 * The database (BENCH_DATABASE_URL or an embedded one), the sink, the setup web process, `contacts`
 * seeded, the worker and the segment; `run` measures; everything is stopped and removed after.
 */
export async function runBroadcastBench(
  name: string,
  contacts: number,
  run: (bench: BroadcastBench) => Promise<void>,
) {
  const dataDir = mkdtempSync(path.join(tmpdir(), `switchboard-bench-${name}-`));
  const database = process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedDatabase({
        dataDir,
        port: await freePort(),
        persistent: false,
        // Statements per message and their times (bench/support/work.ts reads them).
        settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'],
      });
  const postmaster = process.env.BENCH_DATABASE_URL ? null : postmasterPid(path.join(dataDir, 'pg'));
  const sink = await startSink();
  const children: ChildProcess[] = [];
  try {
    await migrateAll(database.url, config());
    if (postmaster !== null) await query(database.url, 'create extension if not exists pg_stat_statements');
    const setup = await startSetupWeb(database.url);
    children.push(setup.child);
    const workspaceId = await setup.api.newWorkspace('Bench');
    await seedContacts(database.url, workspaceId, contacts);
    const worker = startWorker(database.url);
    children.push(worker);
    const audience = await setUpAudience(setup.api, workspaceId, sink.port, database.url);
    await run({ databaseUrl: database.url, sink, api: setup.api, workspaceId, worker, audience, postmaster });
  } finally {
    await Promise.all(children.map(stopChild));
    await sink.close();
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
