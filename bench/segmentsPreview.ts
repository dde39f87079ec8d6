// The segment builder's reads at scale: previewing unsaved rules (count capped at 10,000 plus a
// sample), explaining one contact's membership and the score distribution, over bench:segments'
// seed (1,000,000 contacts, 10,000,000 events over 60 days), each beside the bare query that
// answers the same question. Median of five runs after one warm-up.
//   npm run bench:segments-preview
//   npm run bench:segments-preview -- --contacts 100000 --events 1000000
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { closeContext, createContext, migrateAll } from '../src/app/runtime.ts';
import { config } from '../src/config.ts';
import { freePort, startEmbeddedDatabase } from '../src/db/embedded.ts';
import { scoreDistribution } from '../src/scoring/distribution.ts';
import { explainMembership } from '../src/segments/explain.ts';
import { previewSegment } from '../src/segments/preview.ts';
import { insertSegment } from '../src/segments/queries.ts';
import { type Rule, ruleDependencies } from '../src/segments/rules.ts';
import { seed } from './segmentsSeed.ts';

const { values: args } = parseArgs({
  options: {
    contacts: { type: 'string', default: '1000000' },
    events: { type: 'string', default: '10000000' },
  },
});
const CONTACTS = Number(args.contacts);
const EVENTS = Number(args.events);
const WORKSPACE = 'ws_bench_preview';

/** Rules a builder previews, and the bare count of the same contacts (capped alike). */
const PREVIEWS: { name: string; rules: Rule; bare: string }[] = [
  {
    name: 'email ends with @example.com (all match)',
    rules: { field: 'email', op: 'ends_with', value: '@example.com' },
    bare: `select count(*) from (select 1 from contacts where workspace_id = $1 and email like '%@example.com' limit 10001) x`,
  },
  {
    name: 'email is c500000@example.com (one matches)',
    rules: { field: 'email', op: 'eq', value: 'c500000@example.com' },
    bare: `select count(*) from contacts where workspace_id = $1 and lower(email) = 'c500000@example.com'`,
  },
  {
    name: 'lead score at least 50 (none match)',
    rules: { leadScore: { gte: 50 } },
    bare: `select count(*) from contacts where workspace_id = $1 and lead_score >= 50`,
  },
  {
    name: 'a purchase in the last 30 days (many match)',
    rules: { event: 'purchase', within: 'P30D' },
    bare: `select count(*) from (select distinct contact_id from events where workspace_id = $1 and type = 'purchase'
      and occurred_at >= now() - interval '30 days' limit 10001) x`,
  },
  {
    name: '6+ purchases in 7 days (few match)',
    rules: { event: 'purchase', within: 'P7D', count: { gte: 6 } },
    bare: `select count(*) from (select contact_id from events where workspace_id = $1 and type = 'purchase'
      and occurred_at >= now() - interval '7 days' group by contact_id having count(*) >= 6) x`,
  },
];

async function median(work: () => Promise<unknown>, runs = 5): Promise<number> {
  await work();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

const ms = (value: number) => `${value.toFixed(0).padStart(7)} ms`;

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-'));
  const database = await startEmbeddedDatabase({ dataDir, port: await freePort(), persistent: false });
  const client = new pg.Client({ connectionString: database.url });
  try {
    await migrateAll(database.url, config());
    await client.connect();
    const seeded = await seed(client, database.url, {
      workspaceId: WORKSPACE,
      contacts: CONTACTS,
      events: EVENTS,
      days: 60,
    });
    console.log(
      `${CONTACTS.toLocaleString('en')} contacts, ${EVENTS.toLocaleString('en')} events, seeded in ${seeded.total.toFixed(0)} s`,
    );
    const context = await createContext({ ...config(), LOG_LEVEL: 'warn' }, database.url, 'cli');
    console.log(`${'preview'.padEnd(48)} ${'service'.padStart(10)} ${'bare'.padStart(10)}  answer`);
    for (const preview of PREVIEWS) {
      try {
        const answer = await previewSegment(context.db, WORKSPACE, preview.rules);
        const service = await median(() => previewSegment(context.db, WORKSPACE, preview.rules));
        const bare = await median(() => client.query(preview.bare, [WORKSPACE]));
        const count = answer.exact ? String(answer.count) : `more than ${answer.count}`;
        console.log(`${preview.name.padEnd(48)} ${ms(service)} ${ms(bare)}  ${count}`);
      } catch (error) {
        // A preview past the statement timeout is a figure too: the API answers it with a 503.
        console.log(`${preview.name.padEnd(48)} ${(error as Error).name}`);
      }
    }
    const rules: Rule = {
      all: [
        { field: 'email', op: 'ends_with', value: '@example.com' },
        { event: 'purchase', within: 'P30D' },
      ],
    };
    await insertSegment(context.db, WORKSPACE, 'seg_bench_explain', {
      name: 'Explained',
      description: null,
      rules,
      dependencies: ruleDependencies(rules),
      status: 'ready',
    });
    const contactId = `ct_bench${String(Math.ceil(CONTACTS / 2)).padStart(8, '0')}`;
    const explain = await median(() =>
      explainMembership(context.db, WORKSPACE, contactId, 'seg_bench_explain'),
    );
    console.log(`${'explain one contact (2 conditions)'.padEnd(48)} ${ms(explain)}`);
    const distribution = await median(() => scoreDistribution(context.db, WORKSPACE));
    const bareDistribution = await median(() =>
      client.query('select lead_score, count(*) from contacts where workspace_id = $1 group by 1', [
        WORKSPACE,
      ]),
    );
    console.log(`${'score distribution'.padEnd(48)} ${ms(distribution)} ${ms(bareDistribution)}`);
    await closeContext(context);
  } finally {
    await client.end().catch(() => {});
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
