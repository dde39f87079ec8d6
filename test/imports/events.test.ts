// `switchboard import events`: contacts found or created, scores, segments and webhook events
// set-wise, idempotent row ids, all-or-nothing by default, --dry-run, --json.
import { expect } from 'chai';
import pg from 'pg';
import { OUTBOX_CHANNEL } from '../../src/outbox/emit.ts';
import {
  createContact,
  eraseAround,
  orphanEvents,
  outgoing,
  waitForLockWaiter,
  workspace,
} from '../events/support.ts';
import type { Client } from '../support/client.ts';
import { server } from '../support/server.ts';
import {
  countRows,
  importFileOf,
  importJson,
  ndjson,
  outboxTypes,
  runImport,
  stagingTables,
} from './support.ts';

async function created(client: Client, path: string, body: unknown): Promise<string> {
  const response = await client.post(path, body);
  expect(response.status, response.text).to.equal(201);
  return response.body.id;
}

/** A workspace with a purchase segment, a score rule, a score segment, an event campaign and an endpoint. */
async function furnished() {
  const ws = await workspace();
  const { admin, base } = ws;
  const buyers = await created(admin, `${base}/segments`, {
    name: 'Big buyers',
    rules: { event: 'purchase', where: [{ path: 'amount', op: 'gte', value: 100 }] },
  });
  const hot = await created(admin, `${base}/segments`, { name: 'Hot', rules: { leadScore: { gte: 50 } } });
  await created(admin, `${base}/scoring-rules`, { name: 'Purchase', eventType: 'purchase', points: 25 });
  const campaign = await created(admin, `${base}/campaigns`, {
    name: 'Thanks',
    trigger: { type: 'event', eventType: 'purchase' },
    steps: [{ type: 'send', channel: 'email', subject: 'Thanks', body: 'Thanks!' }],
  });
  expect((await admin.post(`${base}/campaigns/${campaign}/activate`)).status).to.equal(200);
  await created(admin, `${base}/webhooks`, {
    name: 'all',
    url: 'https://example.com/hook',
    direction: 'OUTBOUND',
  });
  return { ...ws, buyers, hot, campaign };
}

const PAST = '2024-03-01T10:00:00.000Z';

const purchases = [
  { id: 'r1', type: 'purchase', email: 'ann@example.com', metadata: { amount: 150 }, timestamp: PAST },
  { id: 'r2', type: 'purchase', email: 'Ann@example.com', metadata: { amount: 20 } },
  { id: 'r3', type: 'purchase', email: 'bob@example.com', firstName: 'Bob', metadata: { amount: 10 } },
  { id: 'r4', type: 'page_view', anonymousId: 'device-1', pageUrl: 'https://example.com/' },
];

async function members(admin: Client, base: string, segmentId: string): Promise<string[]> {
  const list = await admin.get(`${base}/contacts?segmentId=${segmentId}`);
  return list.body.data.map((contact: { email: string | null }) => contact.email).sort();
}

describe('import events', function () {
  this.timeout(90_000);

  it('attaches events to contacts (created as needed) and applies scores, segments and webhook events', async () => {
    const { admin, base, workspaceId, buyers, hot, campaign } = await furnished();
    const known = await createContact(admin, base, { email: 'bob@example.com' });
    const summary = await importJson('events', importFileOf('ndjson', ndjson(purchases)), workspaceId);
    expect(summary).to.include({
      kind: 'events',
      rows: 4,
      imported: 4,
      contactsCreated: 2,
      scoreChanges: 3,
      enrollments: 0,
      invalid: 0,
      dryRun: false,
    });
    const ann = (await admin.get(`${base}/contacts?email=ann@example.com`)).body.data[0];
    expect(ann.leadScore).to.equal(50);
    expect((await admin.get(`${base}/contacts/${known.id}`)).body.leadScore).to.equal(25);
    expect(await members(admin, base, buyers)).to.deep.equal(['ann@example.com']);
    expect(await members(admin, base, hot)).to.deep.equal(['ann@example.com']);
    const events = await admin.get(`${base}/events?contactId=${ann.id}`);
    expect(events.status, events.text).to.equal(200);
    expect(events.body.map((event: { timestamp: string }) => event.timestamp)).to.include(PAST);
    const device = (await admin.get(`${base}/events?type=page_view`)).body[0];
    expect(device.contact).to.include({ email: null });
    expect(device).to.include({ pageUrl: 'https://example.com/' });
    // Historical events trigger no campaign.
    expect((await admin.get(`${base}/campaigns/${campaign}/enrollments`)).body.data).to.deep.equal([]);
    expect(await outboxTypes(workspaceId)).to.deep.include({
      'contact.created': 3, // bob through the API, ann and the device by the import
      'event.tracked': 4,
      'contact.score_changed': 2, // one per contact, its net move: ann +25 twice, bob +25
      'segment.entered': 2,
    });
    const moves = await outgoing(workspaceId, 'contact.score_changed');
    expect(moves).to.deep.include({ contactId: ann.id, previousScore: 0, score: 50, ruleId: null });
    expect(moves).to.deep.include({ contactId: known.id, previousScore: 0, score: 25, ruleId: null });
    expect(await stagingTables()).to.equal(0);
  });

  it('wakes the webhook dispatcher once it commits, instead of leaving its events to the fallback poll', async () => {
    // Only scores and their webhook events, which the import writes in SQL: no feature's `emit` runs.
    const { admin, base, workspaceId } = await workspace();
    await created(admin, `${base}/scoring-rules`, { name: 'Purchase', eventType: 'purchase', points: 25 });
    await created(admin, `${base}/webhooks`, {
      name: 'scores',
      url: 'https://example.com/hook',
      events: ['contact.score_changed'],
    });
    const listener = new pg.Client({ connectionString: server().databaseUrl });
    await listener.connect();
    try {
      await listener.query(`listen ${OUTBOX_CHANNEL}`);
      // The API calls above notify after their commits too: let those arrive before listening for ours.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const woken = new Promise<string>((resolve) =>
        listener.on('notification', (note) => resolve(note.channel)),
      );
      await importJson('events', importFileOf('ndjson', ndjson(purchases)), workspaceId);
      const late = new Promise<string>((resolve) => setTimeout(() => resolve('no notification'), 2_000));
      expect(await Promise.race([woken, late])).to.equal(OUTBOX_CHANNEL);
    } finally {
      await listener.end();
    }
  });

  it('imports nothing twice: a re-run skips every row whose id was imported', async () => {
    const { workspaceId } = await furnished();
    const file = importFileOf('ndjson', ndjson(purchases));
    await importJson('events', file, workspaceId);
    const outbox = await countRows('outgoing_events', workspaceId);
    const again = await importJson('events', file, workspaceId);
    expect(again).to.include({ imported: 0, alreadyImported: 4, contactsCreated: 0, scoreChanges: 0 });
    expect(await countRows('events', workspaceId)).to.equal(4);
    expect(await countRows('outgoing_events', workspaceId)).to.equal(outbox);
  });

  it('--trigger-campaigns enrolls as ingest would', async () => {
    const { admin, base, workspaceId, campaign } = await furnished();
    const summary = await importJson('events', importFileOf('ndjson', ndjson(purchases)), workspaceId, [
      '--trigger-campaigns',
    ]);
    expect(summary.enrollments).to.equal(2); // reentry "never": once per contact
    const enrollments = await admin.get(`${base}/campaigns/${campaign}/enrollments`);
    expect(enrollments.body.data).to.have.length(2);
  });

  it('stops before committing anything for a bad row; --skip-invalid writes it to the rejects file', async () => {
    const { workspaceId } = await furnished();
    const rows = `${ndjson(purchases.slice(0, 2))}{"type": "purchase", "email": "nope"}\nnot json\n${ndjson([
      { type: 'x', timestamp: '2999-01-01T00:00:00Z' },
      { type: 'x', contactId: 'ct_unknown' },
    ])}`;
    const file = importFileOf('ndjson', rows);
    const refused = await runImport('events', file, workspaceId);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain('3 invalid rows; nothing was imported');
    expect(refused.stderr).to.contain('line 3: email: must be an email address');
    expect(refused.stderr).to.contain('line 4: is not valid JSON');
    expect(refused.stderr).to.contain('line 5: timestamp: must not be in the future');
    expect(await countRows('events', workspaceId)).to.equal(0);
    expect(await countRows('contacts', workspaceId)).to.equal(0);

    const rejects = `${file}.bad`;
    const skipped = await importJson('events', file, workspaceId, ['--skip-invalid', '--rejects', rejects]);
    expect(skipped).to.include({ imported: 2, invalid: 4, rejectsFile: rejects });
    const { readFileSync } = await import('node:fs');
    const lines = readFileSync(rejects, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.line)).to.deep.equal([3, 4, 5, 6]);
    expect(lines[3].reason).to.equal('contactId: no contact in this workspace has this id');
    expect(await countRows('events', workspaceId)).to.equal(2);
  });

  it('reads a file of many chunks as one reader would: line numbers across chunks, CRLF, a lone CR, blank lines', async () => {
    const { workspaceId } = await workspace();
    // ~600 KB: several of the chunks the checkers share (src/imports/checkThreads.ts), in turn.
    const padding = 'p'.repeat(150);
    const endings = ['\n', '\r\n', '\n', '\r', '\n\n'];
    let content = '';
    let line = 0;
    const bad: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const ending = endings[i % endings.length];
      line++;
      if (i % 700 === 699) {
        content += `{"type": "x", "email": "nope-${i}"}${ending}`;
        bad.push(line);
      } else
        content += `${JSON.stringify({ type: 'visit', email: `r${i % 40}@example.com`, metadata: { padding, i } })}${ending}`;
      if (ending === '\n\n') line++; // a blank line: counted, skipped
    }
    line++;
    content += '{"type": "x", "email": "last-without-a-line-break"}';
    bad.push(line);
    const file = importFileOf('ndjson', content);
    const rejects = `${file}.bad`;
    const { readFileSync } = await import('node:fs');
    // Three checkers (two threads and the main one), then the main thread alone: the same result
    // (the rows have no id: each run imports them).
    for (const checkers of ['3', '1']) {
      const run = await runImport(
        'events',
        file,
        workspaceId,
        ['--skip-invalid', '--rejects', rejects, '--json'],
        {
          IMPORT_CHECKERS: checkers,
        },
      );
      expect(run.code, run.stderr).to.equal(0);
      expect(JSON.parse(run.stdout)).to.include({ rows: 3001, imported: 2996, invalid: 5 });
      const rejected = readFileSync(rejects, 'utf8')
        .trim()
        .split('\n')
        .map((text) => JSON.parse(text));
      expect(rejected.map((row) => row.line)).to.deep.equal(bad);
      expect(rejected[0].record).to.deep.equal({ type: 'x', email: 'nope-699' });
    }
    expect(await countRows('events', workspaceId)).to.equal(2 * 2996);
    expect(await countRows('contacts', workspaceId)).to.equal(40);
  });

  it('an unknown contactId alone refuses the import too', async () => {
    const { workspaceId } = await furnished();
    const file = importFileOf('jsonl', ndjson([...purchases, { type: 'x', contactId: 'ct_unknown' }]));
    const refused = await runImport('events', file, workspaceId);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain('line 5: contactId: no contact in this workspace has this id');
    expect(await countRows('events', workspaceId)).to.equal(0);
    expect(await countRows('contacts', workspaceId)).to.equal(0);
  });

  it('refuses, importing nothing, when a contact of the file is erased while it runs: no event outlives its contact', async () => {
    const { admin, base, workspaceId } = await workspace();
    const ann = await createContact(admin, base, { email: 'ann@example.com' });
    const refused = await eraseAround(workspaceId, ann.id, () =>
      runImport('events', importFileOf('ndjson', ndjson(purchases)), workspaceId),
    );
    expect(await orphanEvents(workspaceId)).to.equal(0);
    expect(refused.code, refused.stdout).to.equal(1);
    expect(refused.stderr).to.contain('1 contact of this file was deleted or merged while the import ran');
    expect(await countRows('events', workspaceId)).to.equal(0);
  });

  it('refuses, importing nothing, when a contact it would create is created by someone else while it runs', async () => {
    const { admin, base, workspaceId } = await workspace();
    const ann = await createContact(admin, base, { email: 'ann@example.com' });
    const file = importFileOf(
      'ndjson',
      ndjson([
        { type: 'visit', email: 'ann@example.com' },
        { type: 'visit', email: 'zed@example.com' },
      ]),
    );
    // Holding Ann makes the import wait after it planned Zed's contact, while Zed is created.
    const holder = new pg.Client({ connectionString: server().databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from contacts where id = $1 for update', [ann.id]);
      const run = runImport('events', file, workspaceId);
      await Promise.race([waitForLockWaiter(), run]);
      await createContact(admin, base, { email: 'zed@example.com' });
      await holder.query('commit');
      const refused = await run;
      expect(refused.code, refused.stdout).to.equal(1);
      expect(refused.stderr).to.contain('1 contact this file creates was created by someone else');
    } finally {
      await holder.end();
    }
    expect(await countRows('events', workspaceId)).to.equal(0);
    expect(await countRows('contacts', workspaceId)).to.equal(2);
  });

  it('--dry-run reports what it would do and changes nothing', async () => {
    const { workspaceId } = await furnished();
    const outbox = await countRows('outgoing_events', workspaceId);
    const summary = await importJson('events', importFileOf('ndjson', ndjson(purchases)), workspaceId, [
      '--dry-run',
    ]);
    expect(summary).to.include({ dryRun: true, imported: 4, contactsCreated: 3, scoreChanges: 3 });
    expect(await countRows('events', workspaceId)).to.equal(0);
    expect(await countRows('contacts', workspaceId)).to.equal(0);
    expect(await countRows('outgoing_events', workspaceId)).to.equal(outbox);
    // And the ids were not claimed: the real run imports everything.
    const real = await importJson('events', importFileOf('ndjson', ndjson(purchases)), workspaceId);
    expect(real.imported).to.equal(4);
  });

  it('prints one summary line without --json, and its fields with it', async () => {
    const { workspaceId } = await furnished();
    const file = importFileOf('ndjson', ndjson(purchases));
    const text = await runImport('events', file, workspaceId, ['--dry-run']);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.match(
      /^dry run, nothing changed: would import 4 events of 4 rows; 3 contacts created, 3 score changes, 2 segment entries, 0 exits, 0 enrollments; [\d.]+ s, [\d,]+ rows\/s\n$/,
    );
    expect(text.stderr).to.equal(''); // no progress bar off a terminal
    const summary = await importJson('events', file, workspaceId);
    expect(Object.keys(summary).sort()).to.deep.equal(
      [
        'alreadyImported',
        'contactsCreated',
        'dryRun',
        'duplicates',
        'enrollments',
        'entered',
        'exited',
        'file',
        'imported',
        'invalid',
        'kind',
        'phases',
        'rejectsFile',
        'rows',
        'rowsPerSecond',
        'scoreChanges',
        'seconds',
        'workspaceId',
      ].sort(),
    );
    // Where the time went: seconds per phase of the import.
    expect(Object.keys(summary.phases)).to.include.members([
      'load',
      'contacts',
      'events',
      'scores',
      'segments',
    ]);
    for (const seconds of Object.values(summary.phases)) expect(seconds).to.be.a('number').at.least(0);
  });
});
