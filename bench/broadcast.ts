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

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SMTP_POOL_CONNECTIONS } from '../src/channels/email/transport.ts';
import { renderCampaign, sendRaw } from './broadcastRaw.ts';
import {
  awaitSink,
  newCampaign,
  now,
  PRODUCTION_ENV,
  query,
  runBroadcastBench,
  SENDER,
  sleep,
  stopChild,
} from './support/broadcastRun.ts';
import {
  alternate,
  announce,
  benchRounds,
  goalLine,
  median,
  memoryGoal,
  pairedRatios,
  ratioGoal,
} from './support/goals.ts';
import {
  postgresCpuSeconds,
  processCpuSeconds,
  readStatements,
  type Statement,
  statementLines,
  topLevel,
} from './support/work.ts';

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
const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

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

async function main() {
  await runBroadcastBench('broadcast', CONTACTS, async (bench) => {
    const { databaseUrl, sink, api, worker, audience } = bench;
    announce('broadcast', [RATIO_GOAL, RSS_GOAL], ROUNDS);
    const campaigns: string[] = [];
    const rounds = await alternate(
      ROUNDS,
      async (round) => {
        const campaignId = await newCampaign(api, audience, round);
        campaigns.push(campaignId);
        sink.reset();
        const stopSampling = sampleRss(worker.pid!, args.curve ? () => sink.count() : undefined);
        const measureWork = await markWork(bench, campaignId);
        const activated = now();
        await api.post(`${audience.base}/campaigns/${campaignId}/activate`, undefined, 200);
        await awaitSink(sink, CONTACTS, databaseUrl);
        const seconds = (sink.lastAt() - activated) / 1000;
        const rss = stopSampling();
        const work = await measureWork();
        const statuses = await query(
          databaseUrl,
          'select status, count(*)::int as n from messages where campaign_id = $1 group by status order by 1',
          [campaignId],
        );
        const counted = statuses.map((row) => `${row.status} ${row.n}`).join(', ');
        process.stdout.write(
          `  round ${round + 1} worker: ${rate(CONTACTS / seconds, seconds)}, max RSS ${megabytes(rss.max)} (${megabytes(rss.first)} at activation); messages: ${counted}\n` +
            `    work: ${workLine(work)}\n`,
        );
        return { seconds, rss, work };
      },
      async (round) => {
        if (args['skip-raw']) return null;
        Object.assign(process.env, PRODUCTION_ENV);
        const rendered = await renderCampaign(databaseUrl, campaigns[round], SENDER);
        const seconds = await sendRaw(rendered, sink, SMTP_POOL_CONNECTIONS);
        process.stdout.write(`  round ${round + 1} raw:    ${rate(CONTACTS / seconds, seconds)}\n`);
        return seconds;
      },
    );
    await stopChild(worker);
    report(rounds);
  });
}

const rate = (perSecond: number, seconds: number) =>
  `${perSecond.toFixed(0).padStart(6)} messages/s (${seconds.toFixed(1)} s)`;

type Work = { workerSeconds: number; postgresSeconds: number; statements: Statement[] };

/**
 * Starts counting the work of one broadcast: the worker's CPU (/proc, it is a child process), the
 * embedded PostgreSQL's and its statements (counting starts anew). The function returned waits
 * until the broadcast has finished (its finish stamped: every message settled, the bookkeeping
 * after the sends done) and says what it cost. The setup web process's activation request is in
 * PostgreSQL's figure: one request for the whole audience.
 */
async function markWork(
  bench: { databaseUrl: string; worker: { pid?: number }; postmaster: number | null },
  campaignId: string,
) {
  const pid = bench.worker.pid!;
  await readStatements(bench.databaseUrl, { reset: true });
  const worker = processCpuSeconds(pid);
  const postgres = bench.postmaster === null ? Number.NaN : postgresCpuSeconds(bench.postmaster);
  return async (): Promise<Work> => {
    while (
      !(
        await query(
          bench.databaseUrl,
          'select broadcast_finished_at is not null as done from campaigns where id = $1',
          [campaignId],
        )
      )[0]?.done
    )
      await sleep(100);
    return {
      workerSeconds: processCpuSeconds(pid) - worker,
      postgresSeconds:
        bench.postmaster === null ? Number.NaN : postgresCpuSeconds(bench.postmaster) - postgres,
      statements: await readStatements(bench.databaseUrl, { leaveOut: BOOKKEEPING }),
    };
  };
}

/** The bench's own queries, left out of the statements counted. */
const BOOKKEEPING = [
  'select broadcast_finished_at is not null as done%',
  'select status, count(*)::int as n%',
];

/** CPU µs per message of the worker and of PostgreSQL, statements and their execution time per message. */
function workLine(work: Work): string {
  const perMessage = (seconds: number) => ((seconds * 1e6) / CONTACTS).toFixed(0);
  const parts = [
    `worker ${perMessage(work.workerSeconds)} µs`,
    `PostgreSQL ${perMessage(work.postgresSeconds)} µs CPU/message`,
  ];
  if (work.statements.length > 0)
    parts.push(
      `${(topLevel(work.statements, 'calls') / CONTACTS).toFixed(2)} statements`,
      `${perMessage(topLevel(work.statements, 'ms') / 1000)} µs executing/message`,
    );
  return parts.join(', ');
}

type Round = { seconds: number; rss: { max: number }; work: Work };

function report(rounds: { ours: Round[]; baseline: (number | null)[] }) {
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
    ...workReport(rounds.ours),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The median work per message over the rounds, and the statements of the median round. */
function workReport(rounds: Round[]): string[] {
  const works = rounds.map((round) => round.work);
  const middle = [...rounds].sort((a, b) => a.seconds - b.seconds)[Math.floor(rounds.length / 2)];
  const statements = works.filter((work) => work.statements.length > 0);
  const mid = (figure: (work: Work) => number) => median(works.map(figure));
  // One line standing for all statements: the medians of the rounds' sums.
  const sum: Statement = {
    calls: median(statements.map((work) => topLevel(work.statements, 'calls'))),
    ms: median(statements.map((work) => topLevel(work.statements, 'ms'))),
    query: '',
    toplevel: true,
  };
  return [
    `  work (median of ${works.length}): ${workLine({
      workerSeconds: mid((work) => work.workerSeconds),
      postgresSeconds: mid((work) => work.postgresSeconds),
      statements: statements.length > 0 ? [sum] : [],
    })}`,
    '  statements of the median round, by execution time:',
    ...statementLines(middle.work.statements, CONTACTS, 'message', Number(process.env.BENCH_TOP ?? 15)),
  ];
}

await main();
