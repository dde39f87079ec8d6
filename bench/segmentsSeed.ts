// Seeding bench:segments' workspace: a million contacts and ten million events on a 2-core machine.
// Row by row through the events' four indexes and foreign key that takes hours; here the rows go
// in with a few generate_series statements (two at a time, one per core), and the indexes and
// keys are made afterwards, one sort each. The schema's own definitions are read from the catalog
// and replayed, so the loaded table is the migrated one. Then VACUUM ANALYZE, so that neither
// autovacuum nor stale statistics run into the measurements.
import pg from 'pg';
import type { AppContext } from '../src/core/context.ts';
import { insertSegment } from '../src/segments/queries.ts';
import { type Rule, ruleDependencies } from '../src/segments/rules.ts';

export type SeedSize = { workspaceId: string; contacts: number; events: number; days: number };

const STATEMENT_ROWS = 1_000_000;

type Definition = { name: string; definition: string; kind: 'index' | 'constraint' };

/** The table's primary and foreign keys and its other indexes, as statements that make them again. */
export async function indexesAndKeys(client: pg.Client, table: string): Promise<Definition[]> {
  const { rows } = await client.query<Definition>(
    `select conname as name, format('alter table %I add constraint %I %s', $1::text, conname,
              pg_get_constraintdef(oid)) as definition, 'constraint' as kind
     from pg_constraint where conrelid = $1::regclass and contype in ('p', 'u', 'f')
     union all
     -- A partitioned table's index reads CREATE INDEX … ON ONLY, which would make none on the partitions.
     select c.relname, replace(pg_get_indexdef(i.indexrelid), ' ON ONLY ', ' ON '), 'index' from pg_index i join pg_class c on c.oid = i.indexrelid
     where i.indrelid = $1::regclass
       and not exists (select 1 from pg_constraint k where k.conrelid = $1::regclass and k.conindid = i.indexrelid)`,
    [table],
  );
  // Keys before the other indexes when made again, foreign keys last (their check reads the rest).
  const order = (d: Definition) => (d.kind === 'index' ? 1 : d.definition.includes('FOREIGN KEY') ? 2 : 0);
  return rows.sort((a, b) => order(a) - order(b));
}

export async function dropAll(client: pg.Client, table: string, definitions: Definition[]) {
  for (const { name, kind } of [...definitions].reverse()) {
    await client.query(
      kind === 'index'
        ? `drop index ${client.escapeIdentifier(name)}`
        : `alter table ${table} drop constraint ${client.escapeIdentifier(name)}`,
    );
  }
}

/** Monthly partitions for every month of the seeded days, as `switchboard migrate` has for real data. */
async function ensurePartitions(client: pg.Client, days: number) {
  await client.query(
    `select switchboard_add_event_partition(month::date)
     from generate_series(date_trunc('month', now() - make_interval(days => $1)), now(), interval '1 month') as month`,
    [days],
  );
}

const FIRST_NAMES = [
  'Ada',
  'Ben',
  'Chloé',
  'Dara',
  'Emil',
  'Fatima',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemi',
  'Luca',
  'Maya',
  'Nils',
  'Olga',
  'Priya',
];
const LAST_NAMES = [
  'Abbott',
  'Baker',
  'Chen',
  'Dubois',
  'Eriksen',
  'Fischer',
  'García',
  'Haddad',
  'Ivanova',
  'Jensen',
  'Kowalski',
  'Lindqvist',
  'Moreau',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Quinn',
  'Rossi',
  'Schmidt',
  'Tanaka',
];
const PLANS = ['free', 'free', 'free', 'pro', 'pro', 'team', 'enterprise'];
const COUNTRIES = ['DE', 'FR', 'GB', 'US', 'JP', 'BR', 'IN', 'NG', 'SE', 'PL'];

/**
 * Contacts c1..cN@example.com with a name, a phone, a few attributes and a score, as people have
 * (the console's search and sorts read them). The non-key indexes (the trigram and jsonb ones among
 * them) are made after the rows, one sort each, as for the events.
 */
async function seedContacts(client: pg.Client, size: SeedSize) {
  await client.query(`insert into workspaces (id, name) values ($1, 'Bench segments')`, [size.workspaceId]);
  const indexes = (await indexesAndKeys(client, 'contacts')).filter((d) => d.kind === 'index');
  await dropAll(client, 'contacts', indexes);
  await client.query(
    `insert into contacts (workspace_id, id, email, first_name, last_name, phone, attributes, lead_score, created_at)
     select $1, 'ct_bench' || lpad(n::text, 8, '0'), 'c' || n || '@example.com',
            ($3::text[])[1 + n % cardinality($3::text[])], ($4::text[])[1 + (n / 7) % cardinality($4::text[])],
            '+1555' || lpad(n::text, 7, '0'),
            jsonb_build_object('plan', ($5::text[])[1 + (n / 3) % cardinality($5::text[])],
                               'country', ($6::text[])[1 + (n / 11) % cardinality($6::text[])],
                               'customer_id', n),
            (n::bigint * 7919) % 101,
            now() - interval '90 days' + n * interval '1 millisecond'
     from generate_series(1, $2) as n`,
    [size.workspaceId, size.contacts, FIRST_NAMES, LAST_NAMES, PLANS, COUNTRIES],
  );
  await client.query(`set maintenance_work_mem = '1GB'`);
  for (const { definition } of indexes) await client.query(definition);
  await client.query(`reset maintenance_work_mem`);
}

/**
 * Events numbered `from`..`to` of `size.events`: random contacts and types (60 % page views, 20 %
 * logins, 15 % purchases, 5 % signups), times spread evenly over the days before `until` in the
 * order of their ids, as ids made at ingest are.
 */
async function insertEvents(client: pg.Client, size: SeedSize, until: string, from: number, to: number) {
  await client.query(`set synchronous_commit = off`);
  await client.query(
    `insert into events (workspace_id, id, contact_id, type, metadata, occurred_at, received_at, source)
     select $1, 'evt_bench' || lpad(n::text, 9, '0'),
            'ct_bench' || lpad((1 + floor(random() * $2))::int::text, 8, '0'),
            case when r < 0.6 then 'page_view' when r < 0.8 then 'login' when r < 0.95 then 'purchase' else 'signup' end,
            '{}', t, t, 'batch'
     from (select n, random() as r,
                  $3::timestamptz - make_interval(days => $4) * (1 - (n - 0.5) / $5) as t
           from generate_series($6::bigint, $7::bigint) as n) as g`,
    [size.workspaceId, size.contacts, until, size.days, size.events, from, to],
  );
}

/** Runs the tasks on `connections` clients at once (each client takes the next task when done). */
async function onClients(url: string, connections: number, tasks: ((client: pg.Client) => Promise<void>)[]) {
  const queue = [...tasks];
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (let task = queue.shift(); task; task = queue.shift()) await task(client);
      } finally {
        await client.end();
      }
    }),
  );
}

async function seedEvents(client: pg.Client, url: string, size: SeedSize, connections: number) {
  await ensurePartitions(client, size.days);
  const definitions = await indexesAndKeys(client, 'events');
  await dropAll(client, 'events', definitions);
  const until = (await client.query<{ now: string }>(`select now()::text as now`)).rows[0].now;
  const chunks = [];
  for (let from = 1; from <= size.events; from += STATEMENT_ROWS) {
    const to = Math.min(size.events, from + STATEMENT_ROWS - 1);
    chunks.push((chunk: pg.Client) => insertEvents(chunk, size, until, from, to));
  }
  await onClients(url, connections, chunks);
  // One sort per index, in as much memory as it wants (the machine has plenty for the bench).
  await client.query(`set maintenance_work_mem = '2GB'`);
  for (const { definition } of definitions) await client.query(definition);
  await client.query(`reset maintenance_work_mem`);
  const { rows } = await client.query(
    `select indexrelid::regclass::text as name from pg_index where not indisvalid`,
  );
  if (rows.length)
    throw new Error(`invalid indexes after the load: ${rows.map((row) => row.name).join(', ')}`);
}

/** Seeds the workspace; returns the seconds each part took. */
export async function seed(client: pg.Client, url: string, size: SeedSize, connections = 2) {
  const started = performance.now();
  const lap = () => (performance.now() - started) / 1000;
  await seedContacts(client, size);
  const contacts = lap();
  await seedEvents(client, url, size, connections);
  const events = lap() - contacts;
  await client.query('vacuum (analyze) contacts, events');
  await client.query('analyze');
  return { contacts, events, vacuum: lap() - contacts - events, total: lap() };
}

export type BenchSegment = { id: string; name: string; rules: Rule };

/** The segments, ready and never refreshed (the bench runs the refresh it wants). */
export async function insertSegments(context: AppContext, workspaceId: string, segments: BenchSegment[]) {
  for (const segment of segments) {
    await insertSegment(context.db, workspaceId, segment.id, {
      name: segment.name,
      description: null,
      rules: segment.rules,
      dependencies: ruleDependencies(segment.rules),
      status: 'ready',
    });
  }
}
