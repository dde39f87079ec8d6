// The floors for bench/ingest.ts, through plain pg with no HTTP, no validation and no service code.
// - The write floor: the rows a batch run wrote per event (events, score history, lead scores,
//   outgoing events, memberships, enrollments), written again with nothing else: no contact lookup
//   or lock, no segment evaluation, no rule matching, and each connection on its own half of the
//   contacts so that no lock is ever waited for. No implementation of issue 3's pipeline on this
//   machine can ingest faster than this.
// - The work floor: the same rows, plus the two things DESIGN.md's consistency rule makes every
//   implementation do in the request's transaction: lock each event's contact (in id order, held to
//   the commit) and evaluate the segments its events can move, under that lock. The evaluation is
//   the segments' own compiled rules, each for the contacts that brought one of the event types it
//   reads (what ingest narrows it to), counted in one statement. With random contacts, concurrent
//   batches wait for each other's contacts as the design requires. The bare cost of the same work:
//   what is left between it and the service is the service's own cost.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { compileSegmentRules, type Rule } from '../src/segments/index.ts';
import { pick, randomEventBody } from './ingestSetup.ts';

/** Rows written per event, measured on the workspace around a run. */
export type WriteMix = {
  scoreChanges: number;
  outgoing: number;
  entered: number;
  exited: number;
  enrollments: number;
};

// Membership changes are counted by the table's statistics (rows inserted and deleted): the
// segment.entered / segment.exited outgoing events are written only when an endpoint listens, and
// the bench's workspace is the only one writing memberships.
const COUNTS = `
  select (select count(*) from events where workspace_id = $1)::int as events,
         (select count(*) from score_changes where workspace_id = $1)::int as score_changes,
         (select count(*) from outgoing_events where workspace_id = $1)::int as outgoing,
         (select n_tup_ins from pg_stat_user_tables where relid = 'segment_memberships'::regclass)::int as entered,
         (select n_tup_del from pg_stat_user_tables where relid = 'segment_memberships'::regclass)::int as exited,
         (select count(*) from enrollments where workspace_id = $1)::int as enrollments`;

/** An idle backend reports its statistics within 10 s (PostgreSQL's idle stats interval). */
const STATS_FLUSH_MS = 11_000;

type Counts = Record<'events' | 'score_changes' | 'outgoing' | 'entered' | 'exited' | 'enrollments', number>;

async function counts(databaseUrl: string, workspaceId: string): Promise<Counts> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(COUNTS, [workspaceId])).rows[0];
  } finally {
    await client.end();
  }
}

/** Counts the workspace's rows around `run`, and returns what each event wrote. */
export async function measureWriteMix<T>(
  databaseUrl: string,
  workspaceId: string,
  run: () => Promise<T>,
): Promise<{ result: T; mix: WriteMix }> {
  const before = await counts(databaseUrl, workspaceId);
  const result = await run();
  await new Promise((resolve) => setTimeout(resolve, STATS_FLUSH_MS));
  const after = await counts(databaseUrl, workspaceId);
  const events = Math.max(1, after.events - before.events);
  const per = (key: keyof Counts) => (after[key] - before[key]) / events;
  return {
    result,
    mix: {
      scoreChanges: per('score_changes'),
      outgoing: per('outgoing'),
      entered: per('entered'),
      exited: per('exited'),
      enrollments: per('enrollments'),
    },
  };
}

type Workspace = {
  id: string;
  contacts: string[];
  segments: string[];
  campaigns: string[];
  rules: string[];
  reads: SegmentRead[];
};

/**
 * A segment that reads events: its compiled rules (SQL over a contacts row `c`, parameters as
 * slonik names them, $slonik_1…) with their values, and the event types it reads.
 */
type SegmentRead = { predicate: string; values: unknown[]; eventTypes: string[] };

function segmentRead(rules: Rule, eventTypes: string[]): SegmentRead {
  const fragment = compileSegmentRules(rules);
  return { predicate: fragment.sql, values: [...fragment.values], eventTypes };
}

async function loadReads(pool: pg.Pool, workspaceId: string): Promise<SegmentRead[]> {
  const { rows } = await pool.query(
    `select rules, depends_on_event_types from segments
     where workspace_id = $1 and cardinality(depends_on_event_types) > 0 order by id`,
    [workspaceId],
  );
  return rows.map((row) => segmentRead(row.rules, row.depends_on_event_types));
}

async function loadWorkspace(pool: pg.Pool, workspaceId: string): Promise<Workspace> {
  const ids = async (table: string) =>
    (await pool.query(`select id from ${table} where workspace_id = $1 order by id`, [workspaceId])).rows.map(
      (row) => row.id as string,
    );
  return {
    id: workspaceId,
    contacts: await ids('contacts'),
    segments: await ids('segments'),
    campaigns: await ids('campaigns'),
    rules: await ids('scoring_rules'),
    reads: await loadReads(pool, workspaceId),
  };
}

/** The predicate in pg's terms ($N), its parameters numbered after the `offset` before them. */
function shifted(read: SegmentRead, offset: number): string {
  return read.predicate.replace(/\$slonik_(\d+)/g, (_, n) => `$${Number(n) + offset}`);
}

/**
 * The work floor's reads, after its events are in: lock the batch's contacts in id order, then
 * evaluate each event-reading segment for the contacts that brought a type it reads.
 */
async function lockAndEvaluate(
  client: pg.PoolClient,
  ws: Workspace,
  events: { contact_id: string; type: string }[],
) {
  const contacts = [...new Set(events.map((event) => event.contact_id))].sort();
  await client.query(
    'select id from contacts where workspace_id = $1 and id = any($2::text[]) order by id for no key update',
    [ws.id, contacts],
  );
  const values: unknown[] = [ws.id];
  const parts: string[] = [];
  for (const read of ws.reads) {
    const targets = [
      ...new Set(
        events.filter((event) => read.eventTypes.includes(event.type)).map((event) => event.contact_id),
      ),
    ];
    if (targets.length === 0) continue;
    const predicate = shifted(read, values.length);
    values.push(...read.values, targets);
    parts.push(
      `select coalesce(${predicate}, false) as matches from contacts c
       where c.workspace_id = $1 and c.id = any($${values.length}::text[])`,
    );
  }
  if (parts.length === 0) return;
  // Prepared, as the service's diff is: its text repeats for the same segments, and parsing and
  // planning it on every batch, under the locks, would make the floor slower than the work.
  const text = `select count(*) filter (where matches) from (${parts.join(' union all ')}) as evaluated`;
  const name = `floor.${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
  await client.query({ name, text, values });
}

let sequence = 0;
const floorId = (prefix: string) =>
  `${prefix}_floor${process.pid}${(sequence++).toString(36).padStart(10, '0')}`;
const times = (count: number) => Array.from({ length: Math.round(count) }, (_, i) => i);

/** One transaction: `size` events and, per event, the rows of `mix`, for contacts of `half`. */
async function writeBatch(
  pool: pg.Pool,
  ws: Workspace,
  half: string[],
  { size, mix, foreignKeys, work }: FloorOptions,
) {
  const events = times(size).map(() => ({
    id: floorId('evt'),
    contact_id: pick(half),
    ...randomEventBody(),
  }));
  const contactOf = (i: number) => events[i % size].contact_id;
  const scoreChanges = times(size * mix.scoreChanges).map((i) => ({
    id: floorId('sc'),
    contact_id: contactOf(i),
    rule_id: pick(ws.rules),
    event_id: events[i % size].id,
  }));
  const outgoing = times(size * mix.outgoing).map((i) => ({
    id: floorId('oe'),
    data: { contactId: contactOf(i), eventType: 'page_view', metadata: { path: '/pricing' } },
  }));
  const pairs = (count: number) => times(count).map((i) => ({ s: pick(ws.segments), c: contactOf(i) }));
  const enrollments = times(size * mix.enrollments).map((i) => ({
    id: floorId('enr'),
    campaign_id: pick(ws.campaigns),
    contact_id: contactOf(i),
  }));
  const client = await pool.connect();
  try {
    await client.query('begin');
    // Replica mode skips triggers, the foreign-key checks among them (superuser only).
    if (!foreignKeys) await client.query('set local session_replication_role = replica');
    await client.query(
      `insert into events (workspace_id, id, contact_id, type, metadata, source)
       select $1, id, contact_id, type, metadata, 'batch'
       from jsonb_to_recordset($2::jsonb) as r(id text, contact_id text, type text, metadata jsonb)`,
      [ws.id, JSON.stringify(events)],
    );
    if (work) await lockAndEvaluate(client, ws, events);
    await client.query(
      `insert into score_changes (workspace_id, id, contact_id, rule_id, event_id, reason, previous_score, score)
       select $1, id, contact_id, rule_id, event_id, 'rule', 0, 1
       from jsonb_to_recordset($2::jsonb) as r(id text, contact_id text, rule_id text, event_id text)`,
      [ws.id, JSON.stringify(scoreChanges)],
    );
    const scored = [...new Set(scoreChanges.map((row) => row.contact_id))].sort();
    await client.query(
      'update contacts c set lead_score = c.lead_score + 1 from unnest($1::text[]) as r(id) where c.id = r.id',
      [scored],
    );
    await client.query(
      `insert into segment_memberships (workspace_id, segment_id, contact_id)
       select $1, s, c from jsonb_to_recordset($2::jsonb) as r(s text, c text) on conflict do nothing`,
      [ws.id, JSON.stringify(pairs(size * mix.entered))],
    );
    await client.query(
      `delete from segment_memberships m using jsonb_to_recordset($1::jsonb) as r(s text, c text)
       where m.segment_id = r.s and m.contact_id = r.c`,
      [JSON.stringify(pairs(size * mix.exited))],
    );
    await client.query(
      `insert into enrollments (workspace_id, id, campaign_id, contact_id)
       select $1, id, campaign_id, contact_id
       from jsonb_to_recordset($2::jsonb) as r(id text, campaign_id text, contact_id text)`,
      [ws.id, JSON.stringify(enrollments)],
    );
    await client.query(
      `insert into outgoing_events (workspace_id, id, type, data)
       select $1, id, 'event.tracked', data from jsonb_to_recordset($2::jsonb) as r(id text, data jsonb)`,
      [ws.id, JSON.stringify(outgoing)],
    );
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}

type FloorOptions = {
  mix: WriteMix;
  /** Events per transaction. */
  size: number;
  /** false: without foreign-key checks, as if the schema had none. */
  foreignKeys: boolean;
  /**
   * The work floor: lock the contacts and evaluate the segments too (see the top of this file);
   * `randomContacts`: every connection on random contacts of the whole workspace, not on its own
   * half (only with the locks, which keep the writes from deadlocking).
   */
  work?: { randomContacts: boolean };
};

/** Events per second the floor reaches with `connections` transactions of `size` events at a time. */
export async function writeFloor(
  databaseUrl: string,
  workspaceId: string,
  { connections, seconds, ...options }: FloorOptions & { connections: number; seconds: number },
): Promise<number> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections });
  try {
    const ws = await loadWorkspace(pool, workspaceId);
    if (options.work && ws.reads.length === 0)
      throw new Error('the work floor would evaluate nothing: no segment of the workspace reads events');
    const share = Math.ceil(ws.contacts.length / connections);
    const started = performance.now();
    const deadline = started + seconds * 1000;
    let events = 0;
    await Promise.all(
      times(connections).map(async (i) => {
        const half = options.work?.randomContacts
          ? ws.contacts
          : ws.contacts.slice(i * share, (i + 1) * share);
        while (performance.now() < deadline) {
          await writeBatch(pool, ws, half, options);
          events += options.size;
        }
      }),
    );
    return events / ((performance.now() - started) / 1000);
  } finally {
    await pool.end();
  }
}
