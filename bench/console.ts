// The console's pages at a million contacts. One workspace of 1,000,000 contacts (names, phones,
// attributes, scores) and 10,000,000 events over 60 days (bench/segmentsSeed.ts) and two segments
// refreshed over them; four users signed in, each with a session of its own. Each page below is
// loaded by the four sessions at once for a fixed time, and its SERVER time (request received to
// response finished, from Node's http diagnostics channels) is printed beside the same main query
// run bare through the service's pool (no HTTP, four callers at once) in the same run.
//
//   npm run bench:console                                        (1,000,000 contacts, 10,000,000 events)
//   npm run bench:console -- --contacts 100000 --events 1000000 --seconds 5
//   npm run bench:console -- --keep /tmp/console-bench          (seed once, reuse on the next run)
//   npm run bench:console -- --only search                      (the pages whose name contains it)
//
// A page is one entry of PAGES: its paths (cycled through by the load) and its bare query; the
// pages of part two (reports, builder, template editor, audience, progress, forms, imports…) and
// the rest of the console's GET pages are in bench/consolePartTwo.ts, over bench/partTwoSeed.ts.
// A page whose route this build does not have (404) is listed as skipped.
import diagnostics from 'node:diagnostics_channel';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { loadavg, tmpdir, uptime } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { listApiKeys } from '../src/apiKeys/service.ts';
import { listAudit } from '../src/audit/service.ts';
import { dailyFiguresOf, enrollmentCountsOf, stepFiguresOf } from '../src/campaigns/consoleQueries.ts';
import { campaignReport } from '../src/campaigns/report.ts';
import { listCampaignPage } from '../src/campaigns/service.ts';
import { encodeCursor } from '../src/console/paging.ts';
import { searchOf } from '../src/contacts/consoleList.ts';
import { countContactsCapped, searchContacts } from '../src/contacts/searchQueries.ts';
import { getContact } from '../src/contacts/service.ts';
import type { AppContext } from '../src/core/context.ts';
import { freePort, startEmbeddedDatabase } from '../src/db/embedded.ts';
import { listEventsFor } from '../src/events/service.ts';
import { filterOf } from '../src/messages/consolePages.ts';
import { getMessageDetail, listMessagesByKeyset } from '../src/messages/service.ts';
import { scoreDistribution } from '../src/scoring/distribution.ts';
import { getScoringSettings, listRulePage } from '../src/scoring/service.ts';
import { refreshSegments } from '../src/segments/jobs.ts';
import { listMembersAfter } from '../src/segments/queries.ts';
import { getSegment, listSegmentPage } from '../src/segments/service.ts';
import { segmentActivity, statisticsOf } from '../src/segments/stats.ts';
import { endpointHealth } from '../src/webhooks/consoleQueries.ts';
import { listEndpoints } from '../src/webhooks/service.ts';
import { listMembers } from '../src/workspaces/queries.ts';
import { PART_TWO_PAGES } from './consolePartTwo.ts';
import { runLoad } from './load.ts';
import { SEEDED_CAMPAIGN_NAMES, type SeededCampaign, seedMessages } from './messagesSeed.ts';
import { seedPartTwo } from './partTwoSeed.ts';
import { type BenchSegment, insertSegments, seed } from './segmentsSeed.ts';
import { contactId, type Fixture, type Page, queryOf, spread } from './support/consolePage.ts';

const { values: args } = parseArgs({
  options: {
    contacts: { type: 'string', default: '1000000' },
    events: { type: 'string', default: '10000000' },
    messages: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '10' },
    sessions: { type: 'string', default: '4' },
    keep: { type: 'string' },
    only: { type: 'string' },
  },
});
const CONTACTS = Number(args.contacts);
const EVENTS = Number(args.events);
const MESSAGES = Number(args.messages);
const SECONDS = Number(args.seconds);
const SESSIONS = Number(args.sessions);
const WORKSPACE = 'ws_bench_console';
const GOAL_MS = 300;
/** The seeded workspace's name says its size: a kept database is reused only at the same size. */
const SEEDED_NAME = `Bench console ${CONTACTS}/${EVENTS}`;

/** A large segment (about half the contacts) and a small one (a day's signups). */
const SEGMENTS: BenchSegment[] = [
  { id: 'seg_bench_bought', name: 'Bought in 30 days', rules: { event: 'purchase', within: 'P30D' } },
  { id: 'seg_bench_new', name: 'Signed up today', rules: { event: 'signup', within: 'P1D' } },
];

/** The seed's message number n (bench/messagesSeed.ts). */
const messageId = (n: number) => `msg_bench${String(n).padStart(9, '0')}`;
/** A contact with messages: message n went to contact 1 + (ceil(n / 2) × 7919) mod contacts. */
const contactOfMessage = (f: Fixture, n: number) => contactId(1 + ((Math.ceil(n / 2) * 7919) % f.contacts));

/** The message log's query for a query string, as its page runs it. */
function messageLog(context: AppContext, f: Fixture, path: string) {
  const query = queryOf(path);
  const after = query.after ? JSON.parse(Buffer.from(query.after, 'base64url').toString('utf8'))[0] : null;
  return listMessagesByKeyset(context.db, f.workspaceId, filterOf(query), { afterId: after, limit: 51 });
}

const messagesPage = (name: string, paths: (f: Fixture) => string[]): Page => ({
  name: `messages: ${name}`,
  paths: (f) => paths(f).map((query) => `/messages${query}`),
  bare: messageLog,
});

const thirtyDaysAgo = () => new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);

/** The contact list's queries for a query string, as contactListPage runs them (rows and count). */
function contactList(context: AppContext, f: Fixture, path: string) {
  const query = queryOf(path);
  const { search, sort } = searchOf(query);
  const after = query.after ? JSON.parse(Buffer.from(query.after, 'base64url').toString('utf8')) : null;
  return Promise.all([
    searchContacts(context.db, f.workspaceId, search, { sort, after, limit: 51 }),
    countContactsCapped(context.db, f.workspaceId, search, sort),
  ]);
}

const contactsPage = (name: string, paths: (f: Fixture) => string[]): Page => ({
  name: `contacts: ${name}`,
  paths: (f) => paths(f).map((query) => `/contacts${query}`),
  bare: contactList,
});

const PAGES: Page[] = [
  contactsPage('list, newest first', () => ['']),
  contactsPage('list, oldest first', () => ['?sort=oldest']),
  contactsPage('list, by email', () => ['?sort=email']),
  contactsPage('list, a page in the middle', (f) =>
    spread(f, 10).map((n) => `?after=${encodeCursor([contactId(n)])}`),
  ),
  contactsPage('search by whole email', (f) => spread(f, 20).map((n) => `?q=c${n}%40example.com`)),
  contactsPage('search by part of an email', (f) => spread(f, 20).map((n) => `?q=c${Math.floor(n / 10)}`)),
  contactsPage('search by name', () => ['?q=grace', '?q=hiro+tanaka', '?q=kowalski', '?q=ines']),
  contactsPage('search by phone', (f) => spread(f, 20).map((n) => `?q=555${String(n).padStart(7, '0')}`)),
  contactsPage('search, no match', () => ['?q=nobody-here', '?q=zzqx', '?q=%40example.org']),
  contactsPage('attribute value, common', () => ['?attr=plan&value=enterprise', '?attr=country&value=SE']),
  contactsPage('attribute value, one contact', (f) =>
    spread(f, 20).map((n) => `?attr=customer_id&value=${n}`),
  ),
  contactsPage('in a large segment', () => ['?segment=seg_bench_bought']),
  contactsPage('in a small segment', () => ['?segment=seg_bench_new']),
  contactsPage('score range', () => ['?scoreMin=95&scoreMax=100', '?scoreMin=50&scoreMax=50']),
  contactsPage('unsubscribed from email', () => ['?subscription=email:unsubscribed']),
  {
    name: "a contact's page (profile, panels, timeline)",
    paths: (f) => spread(f, 20).map((n) => `/contacts/${contactId(n)}`),
    // Bare: the contact and its timeline's first page (the panels' own queries not included).
    bare: async (context, f, path) => {
      const contact = await getContact(context.db, f.workspaceId, path.split('/')[2]);
      return listEventsFor(context.db, f.workspaceId, { contactId: contact.id, limit: 26 });
    },
  },
  {
    name: 'segments: list',
    paths: () => ['/segments'],
    bare: async (context, f) => {
      const page = await listSegmentPage(context.db, f.workspaceId, { page: 1, limit: 200 });
      return segmentActivity(
        context.db,
        f.workspaceId,
        page.data.map((segment) => segment.id),
      );
    },
  },
  {
    name: "segments: a segment's page (members, statistics)",
    paths: () => SEGMENTS.map((segment) => `/segments/${segment.id}`),
    bare: async (context, f, path) => {
      const segment = await getSegment(context.db, f.workspaceId, path.split('/')[2]);
      return Promise.all([
        statisticsOf(context.db, f.workspaceId, segment),
        listMembersAfter(context.db, f.workspaceId, segment.id, null, 51),
      ]);
    },
  },
  {
    name: 'scoring (rules, settings, distribution)',
    paths: () => ['/scoring'],
    bare: (context, f) =>
      Promise.all([
        listRulePage(context.db, f.workspaceId, { page: 1, limit: 200 }),
        getScoringSettings(context.db, f.workspaceId),
        scoreDistribution(context.db, f.workspaceId),
      ]),
  },
  {
    name: 'campaigns: list (30-day figures)',
    paths: () => ['/campaigns'],
    bare: async (context, f) => {
      const page = await listCampaignPage(context.db, f.workspaceId, {}, { page: 1, limit: 100 });
      const ids = page.data.map((campaign) => campaign.id);
      return Promise.all([
        enrollmentCountsOf(context.db, f.workspaceId, ids),
        dailyFiguresOf(context.db, f.workspaceId, ids, thirtyDaysAgo()),
      ]);
    },
  },
  {
    name: "campaigns: a campaign's page (report, flow)",
    paths: (f) => f.campaigns.map((campaign) => `/campaigns/${campaign.id}`),
    bare: (context, f, path) =>
      Promise.all([
        campaignReport(context.db, f.workspaceId, path.split('/')[2]),
        stepFiguresOf(context.db, f.workspaceId, path.split('/')[2]),
      ]),
  },
  messagesPage('log, newest first', () => ['']),
  messagesPage('log, a page in the middle', (f) =>
    spread({ ...f, contacts: f.messages }, 10).map((n) => `?after=${encodeCursor([messageId(n)])}`),
  ),
  messagesPage('by status (failed)', () => ['?status=failed']),
  messagesPage('by status (queued)', () => ['?status=queued']),
  messagesPage('by campaign', (f) => f.campaigns.map((c) => `?campaign=${c.id}`)),
  messagesPage('by campaign and step', (f) => f.campaigns.map((c) => `?campaign=${c.id}&step=2`)),
  messagesPage('by contact', (f) =>
    spread({ ...f, contacts: f.messages }, 20).map((n) => `?contact=${contactOfMessage(f, n)}`),
  ),
  {
    name: "messages: a message's page (timeline, hits)",
    paths: (f) => spread({ ...f, contacts: f.messages }, 20).map((n) => `/messages/${messageId(n)}`),
    bare: (context, f, path) => getMessageDetail(context.db, f.workspaceId, path.split('/')[2]),
  },
  {
    name: 'webhooks: list',
    paths: () => ['/webhooks'],
    bare: async (context, f) => {
      const endpoints = await listEndpoints(context.db, f.workspaceId);
      return endpointHealth(
        context.db,
        f.workspaceId,
        endpoints.map((endpoint) => endpoint.id),
      );
    },
  },
  {
    name: 'settings: API keys',
    paths: () => ['/settings/keys'],
    bare: (context, f) => listApiKeys(context.db, f.workspaceId),
  },
  {
    name: 'settings: members',
    paths: () => ['/settings/members'],
    bare: (context, f) => listMembers(context.db, f.workspaceId),
  },
  {
    name: 'audit log',
    paths: () => ['/audit'],
    bare: (context, f) => listAudit(context.db, f.workspaceId, { limit: 51 }),
  },
  ...PART_TWO_PAGES,
];

// ---- server time: Node's http diagnostics channels, in this (the server's) process ----

const started = new WeakMap<IncomingMessage, number>();
let serverTimes: number[] = [];
diagnostics.subscribe('http.server.request.start', (message) => {
  started.set((message as { request: IncomingMessage }).request, performance.now());
});
diagnostics.subscribe('http.server.response.finish', (message) => {
  const begun = started.get((message as { request: IncomingMessage }).request);
  if (begun !== undefined) serverTimes.push(performance.now() - begun);
});

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : Number.NaN;

/** `work` from `callers` loops at once for `seconds`: its p50 and p95 in ms. */
async function bareLoad(work: (i: number) => Promise<unknown>, callers: number, seconds: number) {
  const times: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  let next = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < deadline) {
        const begun = performance.now();
        // A statement past the pool's statement timeout counts, at the time it took to fail.
        await work(next++).catch(() => errors++);
        times.push(performance.now() - begun);
      }
    }),
  );
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), count: times.length, errors };
}

// ---- the database: seeded once, or reused from --keep ----

/**
 * The campaigns of the message seed, seeding the messages first when the workspace has none yet
 * (the campaigns of part two, made later, are not among them).
 */
async function seedWorkspaceMessages(url: string, context: AppContext): Promise<SeededCampaign[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const existing = await client.query<SeededCampaign>(
      `select id, name from campaigns where workspace_id = $1 and name = any($2) order by created_at, id`,
      [WORKSPACE, SEEDED_CAMPAIGN_NAMES],
    );
    if (existing.rows.length) {
      console.log(`reusing the seeded messages (${existing.rows.length} campaigns)`);
      return existing.rows;
    }
    const seeded = await seedMessages(client, context, {
      workspaceId: WORKSPACE,
      contacts: CONTACTS,
      messages: MESSAGES,
      days: 30,
    });
    console.log(`messages seeded in ${seeded.seconds.toFixed(0)} s`);
    return seeded.campaigns;
  } finally {
    await client.end();
  }
}

/** Part two's forms, imports and campaigns (bench/partTwoSeed.ts), made where missing. */
async function seedWorkspacePartTwo(url: string, context: AppContext) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    const fixture = await seedPartTwo(client, context, {
      workspaceId: WORKSPACE,
      contacts: CONTACTS,
      submissions: Math.round(MESSAGES / 10),
      enrollments: Math.round(MESSAGES * 0.06),
      days: 30,
    });
    console.log(`part two ready in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return fixture;
  } finally {
    await client.end();
  }
}

async function seedWorkspace(url: string, context: AppContext) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const existing = await client.query<{ name: string }>(`select name from workspaces where id = $1`, [
      WORKSPACE,
    ]);
    if (existing.rows[0]?.name === SEEDED_NAME) {
      console.log(`reusing the seeded workspace (${SEEDED_NAME})`);
      return;
    }
    if (existing.rows.length)
      throw new Error(`the kept database holds another or a half-made seed; remove ${args.keep}`);
    const seeded = await seed(client, url, {
      workspaceId: WORKSPACE,
      contacts: CONTACTS,
      events: EVENTS,
      days: 60,
    });
    const refreshed = performance.now();
    await insertSegments(context, WORKSPACE, SEGMENTS);
    const whole = { rows: Infinity, ms: Infinity, pageSize: context.config.SEGMENT_COMPUTE_PAGE_SIZE };
    await refreshSegments(context, WORKSPACE, whole);
    await client.query('vacuum (analyze) segment_memberships');
    await client.query(`update workspaces set name = $2 where id = $1`, [WORKSPACE, SEEDED_NAME]);
    console.log(
      `seeded in ${seeded.total.toFixed(0)} s (contacts ${seeded.contacts.toFixed(0)} s, events ${seeded.events.toFixed(0)} s, ` +
        `vacuum ${seeded.vacuum.toFixed(0)} s), segments refreshed in ${((performance.now() - refreshed) / 1000).toFixed(0)} s`,
    );
  } finally {
    await client.end();
  }
}

// ---- sessions ----

// Production cookies are Secure: requests arrive as they do behind Heroku's router, which ends TLS.
const BEHIND_TLS = { 'x-forwarded-proto': 'https' };

async function post(origin: string, path: string, body: unknown) {
  const response = await fetch(origin + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...BEHIND_TLS },
    body: JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`POST ${path} → ${response.status}: ${await response.text()}`);
  return response.headers.getSetCookie()[0]?.split(';')[0] ?? '';
}

/** SESSIONS users, members of the workspace, each signed in: their cookies. */
async function signIn(origin: string, context: AppContext): Promise<string[]> {
  const { sql } = await import('../src/db/pool.ts');
  const run = Date.now();
  return Promise.all(
    Array.from({ length: SESSIONS }, async (_, i) => {
      const credentials = { email: `console.${run}.${i}@example.com`, password: 'bench password 123' };
      await post(origin, '/api/auth/register', { name: `Bench ${i}`, ...credentials });
      await context.db.query(sql.unsafe`insert into memberships (workspace_id, user_id, role)
        select ${WORKSPACE}, id, 'ADMIN' from users where email = ${credentials.email}`);
      return post(origin, '/api/auth/signin', credentials);
    }),
  );
}

// ---- the run ----

type Row = {
  name: string;
  requests: number;
  errors: number;
  p50: number;
  p95: number;
  client: number;
  /** None for a page that reads nothing beyond the session. */
  bare: { p50: number; p95: number; errors: number } | null;
};

const bareCells = (bare: Row['bare'], p95: number) =>
  bare
    ? [
        bare.p50.toFixed(1),
        `${bare.p95.toFixed(1)}${bare.errors ? ` (${bare.errors} err)` : ''}`,
        `${(p95 / bare.p95).toFixed(2)}×`,
      ]
    : ['—', '—', '—'];

function printRows(rows: Row[], skipped: string[]) {
  const width = Math.max(40, ...rows.map((r) => r.name.length));
  const cells = (values: string[]) =>
    [values[0].padEnd(width), ...values.slice(1).map((v) => v.padStart(9))].join(' ');
  console.log(
    `\n${SESSIONS} sessions at once, ${SECONDS} s per page; server time in ms; bare = the page's main query through the pool, ${SESSIONS} callers at once`,
  );
  console.log(
    cells(['page', 'requests', 'p50', 'p95', 'client p95', 'bare p50', 'bare p95', 'p95 ratio', 'goal']),
  );
  for (const r of rows) {
    console.log(
      cells([
        r.name,
        `${r.requests}${r.errors ? ` (${r.errors} err)` : ''}`,
        r.p50.toFixed(1),
        r.p95.toFixed(1),
        r.client.toFixed(1),
        ...bareCells(r.bare, r.p95),
        r.p95 <= GOAL_MS ? 'met' : 'MISSED',
      ]),
    );
  }
  for (const name of skipped) console.log(`skipped (no such page in this build): ${name}`);
  console.log(
    `uptime: up ${(uptime() / 3600).toFixed(1)} h, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
  );
}

async function measure(
  origin: string,
  context: AppContext,
  f: Fixture,
  cookies: string[],
  page: Page,
): Promise<Row | null> {
  const paths = page.paths(f);
  const full = paths.map((p) => (p.startsWith('/app/') ? p : `/app/${f.workspaceId}${p}`));
  const probe = await fetch(origin + full[0], { headers: { cookie: cookies[0], ...BEHIND_TLS } });
  await probe.text();
  if (probe.status === 404) return null;
  if (probe.status !== 200)
    console.log(`${page.name}: GET ${paths[0]} → ${probe.status} (measured all the same)`);
  const target = {
    name: page.name,
    paths: full,
    headers: BEHIND_TLS,
    connectionHeaders: cookies.map((cookie) => ({ cookie })),
    status: 200,
  };
  await runLoad(origin, target, Math.min(2, SECONDS), SESSIONS); // warm-up: JIT, caches
  serverTimes = [];
  const load = await runLoad(origin, target, SECONDS, SESSIONS);
  const times = serverTimes.sort((a, b) => a - b);
  const { bare: query } = page;
  const bare = query
    ? await bareLoad((i) => query(context, f, paths[i % paths.length]), SESSIONS, SECONDS)
    : null;
  return {
    name: page.name,
    requests: load.requests,
    errors: load.errors,
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    client: load.p95,
    bare,
  };
}

/**
 * The embedded PostgreSQL kept in `dir`, on the port it had the last time (in `dir`/port): a server
 * of that directory still running there is reused as it is.
 */
async function keptDatabase(dir: string) {
  const portFile = path.join(dir, 'port');
  const port = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : await freePort();
  mkdirSync(dir, { recursive: true });
  writeFileSync(portFile, String(port));
  return startEmbeddedDatabase({ dataDir: dir, port, persistent: true });
}

async function main() {
  const dataDir = args.keep ?? mkdtempSync(path.join(tmpdir(), 'switchboard-bench-'));
  const kept = args.keep ? await keptDatabase(args.keep) : null;
  if (kept) process.env.BENCH_DATABASE_URL = kept.url;
  const { startService } = await import('./load.ts');
  // The bench signs its users in from one address; keep the limiter out of the way.
  const service = await startService(dataDir, {
    SIGNIN_MAX_FAILURES_PER_IP: '100000',
    REGISTRATION_MAX_PER_IP: '100000',
  });
  try {
    await seedWorkspace(service.databaseUrl, service.context);
    const campaigns = await seedWorkspaceMessages(service.databaseUrl, service.context);
    const partTwo = await seedWorkspacePartTwo(service.databaseUrl, service.context);
    const cookies = await signIn(service.origin, service.context);
    const f: Fixture = { workspaceId: WORKSPACE, contacts: CONTACTS, messages: MESSAGES, campaigns, partTwo };
    const rows: Row[] = [];
    const skipped: string[] = [];
    for (const page of PAGES.filter((p) => !args.only || p.name.includes(args.only))) {
      const row = await measure(service.origin, service.context, f, cookies, page);
      if (row) {
        rows.push(row);
        console.log(
          `${page.name}: p95 ${row.p95.toFixed(1)} ms${row.bare ? ` (bare ${row.bare.p95.toFixed(1)} ms)` : ''}`,
        );
      } else skipped.push(page.name);
    }
    printRows(rows, skipped);
  } finally {
    await service.stop();
    await kept?.stop();
    if (!args.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
