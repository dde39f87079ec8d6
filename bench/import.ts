// Bulk import benchmark: `switchboard import events` of N events for M contacts (1,000,000 for
// 100,000 by default) from an NDJSON file, end to end (a child process, side effects included),
// beside a bare COPY of the same file into a table of the events table's shape (same columns,
// indexes and checks), in the same run on the same database. Prints rows/s of both, the ratio
// and the importer's peak RSS (VmHWM of /proc/<pid>/status of the Node process that imports).
//   npm run bench:import
//   npm run bench:import -- --events 100000 --contacts 10000
//   BENCH_DATABASE_URL=postgres://… npm run bench:import
//   BENCH_SUBSCRIBE=all: the webhook endpoint takes every type (event.tracked too)
// BENCH_ROUNDS (5 by default) alternating rounds of the import and the bare COPY; the goal is judged
// on the median of the rounds' ratios (bench/support/goals.ts). Each round imports into a workspace
// of its own, so the events table grows by the file each round; the COPY table grows alike.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { migrateAll } from '../src/app/runtime.ts';
import { config } from '../src/config.ts';
import { freePort, startEmbeddedDatabase } from '../src/db/embedded.ts';
import {
  alternate,
  announce,
  benchRounds,
  goalLine,
  memoryGoal,
  pairedRatios,
  ratioGoal,
} from './support/goals.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    contacts: { type: 'string', default: '100000' },
  },
});
const EVENTS = Number(args.events);
const CONTACTS = Number(args.contacts);
const ROUNDS = benchRounds();
const workspaceOf = (round: number) => `ws_bench_import_${round}`;
const RATIO_GOAL = ratioGoal('import rows/s, ratio to a bare COPY', 0.3);
const RSS_GOAL = memoryGoal("importer's peak RSS", 300);

const SEGMENTS = [
  { rules: { event: 'purchase', count: { gte: 2 } }, types: ['purchase'], score: false, window: false },
  {
    rules: { event: 'purchase', where: [{ path: 'amount', op: 'gt', value: 100 }] },
    types: ['purchase'],
    score: false,
    window: false,
  },
  {
    rules: { event: 'page_view', within: 'P7D', count: { gte: 3 } },
    types: ['page_view'],
    score: false,
    window: true,
  },
  { rules: { leadScore: { gte: 50 } }, types: [], score: true, window: false },
  {
    rules: { all: [{ event: 'signup' }, { leadScore: { gte: 10 } }] },
    types: ['signup'],
    score: true,
    window: false,
  },
];

const RULES = [
  { event: 'purchase', points: 10, where: null, repeatable: true, cooldown: null },
  {
    event: 'purchase',
    points: 20,
    where: [{ path: 'amount', op: 'gt', value: 100 }],
    repeatable: true,
    cooldown: null,
  },
  { event: 'page_view', points: 1, where: null, repeatable: true, cooldown: null },
  { event: 'signup', points: 5, where: null, repeatable: false, cooldown: null },
  { event: 'demo_request', points: 15, where: null, repeatable: true, cooldown: 86_400 },
];

/** The workspace: segments, scoring rules and a webhook endpoint, written directly. */
async function setUp(client: pg.Client, workspaceId: string) {
  await client.query(`insert into workspaces (id, name) values ($1, 'Import bench')`, [workspaceId]);
  for (const [i, segment] of SEGMENTS.entries()) {
    await client.query(
      `insert into segments (workspace_id, id, name, rules, depends_on_event_types, depends_on_score, has_time_window)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [
        workspaceId,
        `seg_bench${i}`,
        `Segment ${i}`,
        segment.rules,
        segment.types,
        segment.score,
        segment.window,
      ],
    );
  }
  for (const [i, rule] of RULES.entries()) {
    await client.query(
      `insert into scoring_rules (workspace_id, id, name, event_type, points, "where", repeatable, cooldown, cooldown_seconds)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        workspaceId,
        `scr_bench${i}`,
        `Rule ${i}`,
        rule.event,
        rule.points,
        rule.where ? JSON.stringify(rule.where) : null,
        rule.repeatable,
        rule.cooldown ? 'P1D' : null,
        rule.cooldown,
      ],
    );
  }
  const events =
    process.env.BENCH_SUBSCRIBE === 'all'
      ? []
      : ['contact.created', 'contact.score_changed', 'segment.entered', 'segment.exited'];
  await client.query(
    `insert into webhook_endpoints (workspace_id, id, name, direction, url, events, secret_plaintext)
     values ($1, 'whe_bench', 'bench', 'OUTBOUND', 'https://example.com/hook', $2, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')`,
    [workspaceId, events],
  );
}

const TYPES = [
  'page_view',
  'page_view',
  'page_view',
  'page_view',
  'page_view',
  'page_view',
  'purchase',
  'purchase',
  'signup',
  'demo_request',
];
const PATHS = ['/', '/pricing', '/docs', '/blog'];

/** N events for M contacts, spread over the last 60 days, each with a row id. */
async function writeEvents(file: string) {
  const out = createWriteStream(file);
  const now = Date.now();
  for (let i = 0; i < EVENTS; i++) {
    const type = TYPES[i % TYPES.length];
    const metadata =
      type === 'purchase' ? { amount: (i * 37) % 250 } : type === 'page_view' ? { path: PATHS[i % 4] } : {};
    const line = JSON.stringify({
      id: `row-${i}`,
      type,
      email: `contact${(i * 7919) % CONTACTS}@example.com`,
      metadata,
      timestamp: new Date(now - ((i * 104_729) % (60 * 86_400_000))).toISOString(),
    });
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

const copyText = (value: string) =>
  value.replace(/[\\\t\n\r]/g, (char) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[char]!);

/** The baseline: the same file, parsed and COPYed into a table shaped like events, nothing else. */
async function bareCopy(url: string, file: string, workspaceId: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('create table if not exists bench_copy (like events including all)');
  const started = performance.now();
  const copy = client.query(
    copyFrom('copy bench_copy (workspace_id, id, type, metadata, occurred_at, source) from stdin'),
  );
  let buffer = '';
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    const event = JSON.parse(line);
    buffer += `${workspaceId}\tevt_${n++}\t${copyText(event.type)}\t${copyText(JSON.stringify(event.metadata))}\t${event.timestamp}\tbatch\n`;
    if (buffer.length > 256 * 1024) {
      if (!copy.write(buffer)) await once(copy, 'drain');
      buffer = '';
    }
  }
  copy.end(buffer);
  await once(copy, 'finish');
  const seconds = (performance.now() - started) / 1000;
  await client.end();
  return { seconds, rows: n };
}

function peakRss(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** `switchboard import` runs the import in a Node process of its own (bin/switchboard.js): that one's pid. */
function importerPid(pid: number): number {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
    return Number(children[0]) || pid;
  } catch {
    return pid;
  }
}

/** `switchboard import events FILE --json` as the user runs it; its summary, time and the importer's peak RSS. */
async function runImport(url: string, file: string, workspaceId: string) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/switchboard.js'), 'import', 'events', file, '--workspace', workspaceId, '--json'],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  let rss = 0;
  let launcherRss = 0;
  const sampler = setInterval(() => {
    rss = Math.max(rss, peakRss(importerPid(child.pid!)));
    launcherRss = Math.max(launcherRss, peakRss(child.pid!));
  }, 100);
  const [code] = await once(child, 'close');
  clearInterval(sampler);
  if (code !== 0) throw new Error(`import exited with ${code}: ${stdout}`);
  return { seconds: (performance.now() - started) / 1000, rss, launcherRss, summary: JSON.parse(stdout) };
}

const rate = (rows: number, seconds: number) => Math.round(rows / seconds).toLocaleString('en');

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-import-'));
  const database = process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedDatabase({ dataDir, port: await freePort(), persistent: false });
  try {
    await migrateAll(database.url, config());
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const file = path.join(dataDir, 'events.ndjson');
    await writeEvents(file);
    console.log(
      `${EVENTS.toLocaleString('en')} events for ${CONTACTS.toLocaleString('en')} contacts: ${(statSync(file).size / 1e6).toFixed(0)} MB of NDJSON`,
    );
    announce('import', [RATIO_GOAL, RSS_GOAL], ROUNDS);
    const rounds = await alternate(
      ROUNDS,
      async (round) => {
        await setUp(client, workspaceOf(round));
        const imported = await runImport(database.url, file, workspaceOf(round));
        const s = imported.summary;
        console.log(
          `  round ${round + 1} import: ${imported.seconds.toFixed(1)} s, ${rate(EVENTS, imported.seconds)} rows/s, peak RSS ${imported.rss.toFixed(0)} MB (its launcher ${imported.launcherRss.toFixed(0)} MB)`,
        );
        console.log(
          `            ${s.imported} events, ${s.contactsCreated} contacts created, ${s.scoreChanges} score changes, ` +
            `${s.entered} segment entries, ${s.exited} exits`,
        );
        const phases = Object.entries(s.phases ?? {}).map(([phase, seconds]) => `${phase} ${seconds} s`);
        console.log(`            phases (of ${s.seconds} s in the importer): ${phases.join(', ')}`);
        return imported;
      },
      async (round) => {
        const baseline = await bareCopy(database.url, file, workspaceOf(round));
        console.log(
          `  round ${round + 1} bare COPY: ${baseline.seconds.toFixed(1)} s, ${rate(baseline.rows, baseline.seconds)} rows/s`,
        );
        return baseline;
      },
    );
    await client.query('drop table if exists bench_copy');
    const outbox = await client.query(
      'select type, count(*)::int as n from outgoing_events group by type order by type',
    );
    console.log(
      `outgoing events, all rounds: ${outbox.rows.map((row) => `${row.type} ${row.n}`).join(', ')}`,
    );
    const speed = (run: { seconds: number }) => 1 / run.seconds;
    console.log(goalLine(RATIO_GOAL, pairedRatios(rounds.ours.map(speed), rounds.baseline.map(speed))));
    console.log(
      goalLine(
        RSS_GOAL,
        rounds.ours.map((run) => run.rss),
      ),
    );
    await client.end();
  } finally {
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
