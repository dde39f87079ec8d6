// Fault runs with figures. Starts the real processes (PostgreSQL, and the Procfile's web and worker
// as child processes), applies load through the HTTP API from this process, breaks one thing at a
// time, lets the system recover by itself (a killed process is started again, as a Procfile
// platform restarts a crashed dyno), then checks the database and the receivers:
//   1. web SIGKILLed under ingest load (single events and batches, 50 connections);
//   2. worker SIGKILLed during a webhook fan-out, and during an email broadcast;
//   3. PostgreSQL restarted (fast shutdown, a few seconds down, start) under ingest load;
//   4. a webhook receiver that never answers beside two healthy ones.
// Prints one table: scenario, load, acknowledged, lost, duplicated, half-applied, time to recover,
// then a note per scenario. Exit code 1 if anything was lost, half-applied, or an email duplicated.
//   npm run bench:faults            (10,000 webhooks and 10,000 emails; a few minutes)
//   npm run bench:faults -- --quick (1,000 of each)
//   npm run bench:faults -- --only=2a,2b
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Row, workerKilledDuringBroadcast, workerKilledDuringFanOut } from './faultDelivery.ts';
import { hangingReceiver } from './faultHanging.ts';
import { setUpIngest } from './faultIngest.ts';
import { databaseRestarted, type Sizes, webKilled, workerProbe } from './faultIngestRuns.ts';
import { startSmtpSink, startWebhookReceiver } from './faultReceivers.ts';
import { Admin, FAULT_SETTINGS, startService } from './faultService.ts';

const QUICK = process.argv.includes('--quick');
// --only=2b (or 1,3): just those scenarios.
const ONLY = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const SIZES = QUICK
  ? {
      messages: 1_000,
      contacts: 200,
      hanging: 200,
      ingest: { connections: 50, batch: 50, warmMs: 2_000, outageMs: 3_000 },
    }
  : {
      messages: 10_000,
      contacts: 500,
      hanging: 1_000,
      ingest: { connections: 50, batch: 50, warmMs: 4_000, outageMs: 5_000 },
    };

const COLUMNS = ['scenario', 'load', 'acknowledged', 'lost', 'duplicated', 'half-applied', 'time to recover'];

function printTable(rows: Row[]) {
  const cells = rows.map((row) => [
    row.scenario,
    row.load,
    row.acknowledged,
    String(row.lost),
    String(row.duplicated),
    String(row.halfApplied),
    row.recover,
  ]);
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...cells.map((line) => line[i].length)));
  const line = (values: string[]) => `| ${values.map((value, i) => value.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(COLUMNS));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const values of cells) console.log(line(values));
  console.log('');
  for (const row of rows) for (const note of row.notes) console.log(`${row.scenario.split(' ')[0]}: ${note}`);
}

async function runScenarios(dataDir: string): Promise<Row[]> {
  const service = await startService(dataDir);
  const receiver = await startWebhookReceiver();
  const sink = await startSmtpSink();
  try {
    const admin = new Admin(service.origin);
    await admin.signUp();
    const probeTarget = await admin.workspace('Worker probe');
    await admin.post('/webhooks', { url: receiver.url('probe'), events: ['event.tracked'] });
    const ingest = await setUpIngest(admin, SIZES.contacts, receiver);
    const sizes: Sizes = SIZES.ingest;
    const rows: Row[] = [];
    const run = async (name: string, scenario: () => Promise<Row>) => {
      if (ONLY && !ONLY.includes(name)) return;
      const row = await scenario();
      rows.push(row);
      console.error(`done: ${row.scenario}`);
    };
    await run('1', () => webKilled(service, ingest, sizes, receiver));
    if (service.database.restartable)
      await run('3', () =>
        databaseRestarted(service, ingest, sizes, receiver, workerProbe(service, probeTarget, receiver)),
      );
    await run('2a', () => workerKilledDuringFanOut(service, admin, receiver, SIZES.messages));
    await run('2b', () => workerKilledDuringBroadcast(service, admin, sink, SIZES.messages));
    await run('4', () => hangingReceiver(service, admin, receiver, SIZES.hanging));
    return rows;
  } finally {
    await service.stop();
    await receiver.close();
    await sink.close();
  }
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-faults-'));
  try {
    const started = Date.now();
    const rows = await runScenarios(dataDir);
    console.log(
      `${QUICK ? 'quick run' : 'full run'} in ${((Date.now() - started) / 1000).toFixed(0)} s; settings beside the defaults: ` +
        Object.entries(FAULT_SETTINGS)
          .map(([name, value]) => `${name}=${value}`)
          .join(', '),
    );
    printTable(rows);
    const broken = rows.some(
      (row) => row.lost > 0 || row.halfApplied > 0 || (row.scenario.includes('email') && row.duplicated > 0),
    );
    // Counts, not speeds: no baseline and no rounds. One scenario failing fails the run.
    console.log(
      `goal: 0 lost, 0 half-applied, 0 emails sent twice in every scenario   ${broken ? 'NOT MET (exit 1)' : 'met'}`,
    );
    process.exitCode = broken ? 1 : 0;
  } finally {
    if (!process.env.BENCH_KEEP) rmSync(dataDir, { recursive: true, force: true });
    else console.error(`kept ${dataDir}`);
  }
}

await main();
