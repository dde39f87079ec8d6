// Events partitioned by month (sql/0031): partitions ahead, the default partition and how its rows
// move out, retention by whole months, pruning in the plans of the time-filtered reads, and the
// conversion of an existing table.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import type { FragmentSqlToken, QuerySqlToken } from 'slonik';
import { z } from 'zod';
import { config } from '../../src/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { sql } from '../../src/db/pool.ts';
import {
  dropEventPartitionsBefore,
  ensureEventPartitions,
  pruneExpiredEvents,
} from '../../src/events/partitions.ts';
import { listEventsQuery } from '../../src/events/queries.ts';
import { compileSegmentRules } from '../../src/segments/index.ts';
import { emptyDatabase, migrationsBefore } from '../support/partialMigrations.ts';
import { server } from '../support/server.ts';
import { createContact, track, workspace } from './support.ts';

const db = () => server().context.db;

/** The partition holding each event. */
async function partitionsOf(ids: string[]) {
  const rows = await db().any(sql.type(z.object({ id: z.string(), partition: z.string() }))`
    select id, tableoid::regclass::text as partition from events where id = any(${sql.array(ids, 'text')})`);
  return Object.fromEntries(rows.map((row) => [row.id, row.partition]));
}

async function partitionNames() {
  return db().anyFirst(sql.type(z.object({ name: z.string() }))`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'events'::regclass order by 1`);
}

function monthName(date: Date) {
  return `events_${date.getUTCFullYear()}_${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The plan's text: which partitions it reads. */
async function plan(query: FragmentSqlToken | QuerySqlToken) {
  const lines = await db().anyFirst(sql.type(z.object({ 'QUERY PLAN': z.string() }))`explain ${query}`);
  return lines.join('\n');
}

describe('events partitioned by month', () => {
  it('has a default partition and monthly ones from this month to EVENT_PARTITIONS_AHEAD_MONTHS ahead', async () => {
    const names = await partitionNames();
    const now = new Date();
    const ahead = config().EVENT_PARTITIONS_AHEAD_MONTHS;
    expect(names).to.include('events_default');
    for (let month = 0; month <= ahead; month++) {
      expect(names).to.include(
        monthName(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + month, 1))),
      );
    }
  });

  it('takes an event of a month without partition into the default, and moves it out when the month gets one', async () => {
    const { admin, base } = await workspace();
    const contact = await createContact(admin, base, {
      email: `old-${randomBytes(4).toString('hex')}@example.com`,
    });
    const old = await track(admin, base, {
      type: 'old',
      contactId: contact.id,
      timestamp: '2003-04-05T06:07:08.009Z',
    });
    const recent = await track(admin, base, { type: 'recent', contactId: contact.id });
    expect(await partitionsOf([old.id, recent.id])).to.deep.equal({
      [old.id]: 'events_default',
      [recent.id]: monthName(new Date()),
    });

    // PostgreSQL refuses a partition whose range has rows in the default: they move in first.
    expect(await ensureEventPartitions(db(), 3)).to.include('events_2003_04');
    expect(await partitionsOf([old.id])).to.deep.equal({ [old.id]: 'events_2003_04' });
    const listed = await admin.get(`${base}/events?contactId=${contact.id}`);
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.body.map((event: { id: string }) => event.id)).to.deep.equal([recent.id, old.id]);
    expect(listed.body[1].timestamp).to.equal('2003-04-05T06:07:08.009Z');
    expect(await ensureEventPartitions(db(), 3)).to.deep.equal([]); // nothing more to make
  });

  it('retention drops the months that ended before the cutoff, whole, and old rows of the default', async () => {
    const { admin, base } = await workspace();
    const at = (timestamp: string) => track(admin, base, { type: 'kept?', timestamp });
    const gone = await at('2001-01-20T00:00:00.000Z');
    const straddling = await at('2001-02-27T00:00:00.000Z');
    await ensureEventPartitions(db(), 3); // events_2001_01 and events_2001_02
    // A row the default kept (no partition was made for its month yet).
    await db().query(sql.unsafe`
      insert into events_default (workspace_id, id, type, occurred_at)
      select workspace_id, 'evt_default_old', 'kept?', '2000-06-01T00:00:00Z' from events where id = ${gone.id}`);

    const cutoff = new Date('2001-02-10T00:00:00.000Z');
    const days = Math.floor((Date.now() - cutoff.getTime()) / 86_400_000);
    const settings = { ...config(), RETENTION_EVENTS_MS: days * 86_400_000 };
    expect(await pruneExpiredEvents(db(), settings, true)).to.be.at.least(2); // a dry run
    expect(await partitionNames()).to.include('events_2001_01');
    expect(await pruneExpiredEvents(db(), settings)).to.be.at.least(2);
    const left = await partitionsOf([gone.id, straddling.id, 'evt_default_old']);
    expect(left).to.deep.equal({ [straddling.id]: 'events_2001_02' });
    const names = await partitionNames();
    expect(names).to.not.include('events_2001_01');
    expect(names).to.include('events_2001_02'); // not all past the cutoff
    expect(await dropEventPartitionsBefore(db(), cutoff)).to.deep.equal([]);
  });

  it('prunes partitions in the plan of the list with a time filter and of a segment time window', async () => {
    await db().query(sql.unsafe`select switchboard_add_event_partition('2002-07-01')`);
    const { workspaceId } = await workspace();
    const listPlan = await plan(
      listEventsQuery(workspaceId, { before: '2002-08-01T00:00:00.000Z', limit: 50 }),
    );
    expect(listPlan).to.include('events_2002_07');
    expect(listPlan).to.not.include(monthName(new Date()));

    const rule = { event: 'purchase', within: 'P30D' } as Parameters<typeof compileSegmentRules>[0];
    const windowPlan = await plan(sql.fragment`
      select ${compileSegmentRules(rule)} from contacts c where c.workspace_id = ${workspaceId}`);
    expect(windowPlan).to.include(monthName(new Date()));
    expect(windowPlan).to.not.include('events_2002_07');
    expect(windowPlan).to.match(/Subplans Removed: \d+/);

    // Without a window, every past month is read, but none of the months ahead (all empty).
    const ever = { event: 'purchase' } as Parameters<typeof compileSegmentRules>[0];
    const everPlan = await plan(sql.fragment`
      select ${compileSegmentRules(ever)} from contacts c where c.workspace_id = ${workspaceId}`);
    const now = new Date();
    expect(everPlan).to.include('events_2002_07');
    expect(everPlan).to.not.include(
      monthName(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 1))),
    );
  });
});

describe('the migration to partitioned events', () => {
  it('keeps every row, each in the partition of its month', async () => {
    const url = await emptyDatabase('partitions');
    await migrate(url, migrationsBefore('0031'));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`
        insert into workspaces (id, name) values ('ws_1', 'One');
        insert into contacts (workspace_id, id, email) values ('ws_1', 'ct_1', 'a@example.com');
        insert into events (workspace_id, id, contact_id, type, metadata, page_url, occurred_at, received_at, source)
        select 'ws_1', 'evt_' || n, case when n % 2 = 0 then 'ct_1' end, 'type' || (n % 3), jsonb_build_object('n', n),
               'https://example.com/' || n, now() - n * interval '20 days', now() - n * interval '1 day', 'batch'
        from generate_series(1, 40) as n`);
      const snapshot = 'select * from events order by id';
      const rows = (await client.query(snapshot)).rows;
      await migrate(url);
      expect((await client.query(snapshot)).rows).to.deep.equal(rows);
      const placed = await client.query(`
        select count(*)::int as misplaced from events
        where tableoid::regclass::text <> 'events_' || to_char(occurred_at at time zone 'UTC', 'YYYY_MM')`);
      expect(placed.rows[0].misplaced).to.equal(0);
      const kind = await client.query(`select relkind from pg_class where relname = 'events'`);
      expect(kind.rows[0].relkind).to.equal('p');
    } finally {
      await client.end();
    }
  });
});
