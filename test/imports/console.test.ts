// The console's imports over HTTP: a CSV of contacts uploaded (multipart, streamed), its columns
// mapped by a guess the person changes, the first rows previewed as they will be imported, the
// import started and run by the worker, the refused rows listed by line and downloaded as a
// rejects file; an NDJSON file of events with its keys and polled progress; the size limit, CSRF,
// roles (ADMIN only), other workspaces' imports as 404, and hostile column names and values inert.
import { expect } from 'chai';
import pg from 'pg';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { pruneBatch } from '../../src/db/retention.ts';
import { importRetention } from '../../src/imports/retention.ts';
import type { Client, TestResponse } from '../support/client.ts';
import { consolePage, expectInert, followRedirect, postConsoleForm } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { server, startSecondWeb } from '../support/server.ts';

const HOSTILE = '"><img src=x onerror=alert(1)>';
const UNKNOWN_CONTACT = 'ct_01M8FA4N97W29472FMFC12FCEJ';

/** A multipart/form-data body with these fields, in this order (the file where `file` says). */
function multipart(
  parts: ({ name: string; value: string } | { name: string; filename: string; content: string })[],
) {
  const boundary = `----switchboard${Math.random().toString(16).slice(2)}`;
  const chunks = parts.map((part) =>
    'filename' in part
      ? `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n${part.content}\r\n`
      : `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`,
  );
  return {
    body: Buffer.from(`${chunks.join('')}--${boundary}--\r\n`),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

async function upload(
  client: Client,
  app: string,
  input: { token: string; kind: string; filename: string; content: string },
): Promise<TestResponse> {
  const form = multipart([
    { name: '_csrf', value: input.token },
    { name: 'kind', value: input.kind },
    { name: 'file', filename: input.filename, content: input.content },
  ]);
  return client.request('POST', `${app}/imports`, form);
}

/** Uploads and follows to the import's page; answers the page and the import's path. */
async function uploaded(client: Client, app: string, kind: string, filename: string, content: string) {
  const list = await consolePage(client, `${app}/imports`);
  const response = await upload(client, app, { token: list.token, kind, filename, content });
  const location = response.headers.get('location') ?? '';
  expect(location, response.text.slice(0, 300)).to.match(new RegExp(`^${app}/imports/imp_[0-9A-Z]{26}$`));
  const page = await followRedirect(client, response);
  return { page, path: location, id: location.split('/').pop()! };
}

/** The import's page once the worker has ended it. */
async function whenEnded(client: Client, path: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const page = await consolePage(client, path);
    if (!page.text.includes('id="import-progress"')) return page;
    if (Date.now() > deadline) throw new Error(`the import did not end: ${page.text.slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const selected = (page: string, index: number) =>
  new RegExp(`<select id="target-${index}" name="target.${index}">[\\s\\S]*?</select>`)
    .exec(page)?.[0]
    .match(/<option value="([^"]+)" selected>/)?.[1];

async function contactOf(workspaceId: string, email: string) {
  return server().context.db.maybeOne(
    sql.type(
      z.object({ first_name: z.string().nullable(), attributes: z.record(z.string(), z.unknown()) }),
    )`select first_name, attributes from contacts where workspace_id = ${workspaceId} and email = ${email}`,
  );
}

async function chunksLeft(importId: string) {
  return server().context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from import_file_chunks where import_id = ${importId}
  `);
}

const CONTACTS_CSV = [
  `Email,First Name,plan,notes,"${HOSTILE.replaceAll('"', '""')}"`,
  'ada@example.com,Ada,pro,"likes ""engines""",javascript:alert(1)',
  `not-an-email,Bob,trial,,<script>alert(1)</script>`,
  'charles@example.com,Charles,trial,"two',
  'lines",z',
  ',Nobody,free,,w',
  '',
].join('\n');

describe('imports: console pages', function () {
  this.timeout(90_000);

  it('uploads a CSV, maps its columns, previews, imports in the worker and lists and downloads the refused rows', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    const list = await consolePage(client, `${app}/imports`);
    expect(list.text).to.contain('enctype="multipart/form-data"');
    expect(list.text).to.contain('at most 100 MB');
    expect(list.text).to.contain('No imports yet');

    const { page, path, id } = await uploaded(
      client,
      app,
      'contacts',
      '<img src=x onerror=alert(1)>.csv',
      CONTACTS_CSV,
    );
    expectInert(page.text, 'the mapping page');
    expect(page.text).to.contain('File uploaded: check the mapping');
    // The guess: fields by their names, the rest attributes.
    expect([0, 1, 2, 3, 4].map((i) => selected(page.text, i))).to.deep.equal([
      'field:email',
      'field:firstName',
      'attribute',
      'attribute',
      'attribute',
    ]);
    expect(page.text).to.contain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    // The preview: each row as it will be imported, or why it will not.
    expect(page.text).to.match(
      /<td class="num">3<\/td><td>[\s\S]*?not-an-email[\s\S]*?refused[\s\S]*?email: /,
    );
    expect(page.text).to.contain('&quot;notes&quot;: &quot;likes \\&quot;engines\\&quot;&quot;');

    // The person ignores the notes and looks again: the preview follows.
    const fields = {
      _csrf: page.token,
      'target.0': 'field:email',
      'target.1': 'field:firstName',
      'target.2': 'attribute',
      'target.3': 'ignore',
      'target.4': 'attribute',
    };
    const previewed = await followRedirect(
      client,
      await postConsoleForm(client, path, { ...fields, action: 'preview' }),
    );
    expect(selected(previewed.text, 3)).to.equal('ignore');
    expect(previewed.text).to.not.contain('likes');
    const refusedMapping = await postConsoleForm(client, path, {
      ...fields,
      'target.3': 'field:nope',
      action: 'preview',
    });
    expect((await followRedirect(client, refusedMapping)).text).to.contain('cannot go to “field:nope”');

    const started = await postConsoleForm(client, path, { ...fields, action: 'start' });
    expect((await followRedirect(client, started)).text).to.contain('Import started.');
    const done = await whenEnded(client, path);
    expectInert(done.text, 'the outcome page');
    expect(done.text).to.contain('badge-success">finished');
    expect(done.text).to.match(/<dt>Imported<\/dt><dd>2<\/dd>/);
    expect(done.text).to.match(/<dt>Refused<\/dt><dd>2<\/dd>/);
    expect(done.text).to.match(/<dt>Contacts created<\/dt><dd>2<\/dd>/);
    expect(done.text).to.match(
      /<td class="num">3<\/td><td><span class="break">email: [^<]+<\/span><\/td><td><code class="break">not-an-email,Bob,trial,,&lt;script&gt;/,
    );
    expect(done.text).to.match(/<td class="num">6<\/td><td><span class="break">email: /);
    expect(await contactOf(workspaceId, 'ada@example.com')).to.deep.equal({
      first_name: 'Ada',
      attributes: { plan: 'pro', [HOSTILE]: 'javascript:alert(1)' },
    });
    expect((await contactOf(workspaceId, 'charles@example.com'))?.attributes).to.deep.equal({
      plan: 'trial',
      [HOSTILE]: 'z',
    });
    expect(await chunksLeft(id)).to.equal(0);

    const rejects = await client.get(`${path}/rejects`);
    expect(rejects.status).to.equal(200);
    expect(rejects.headers.get('content-type')).to.match(/^text\/csv/);
    expect(rejects.headers.get('content-disposition')).to.match(
      /^attachment; filename="[A-Za-z0-9._-]+-rejects\.csv"$/,
    );
    const lines = rejects.text.split('\n');
    expect(lines[0]).to.equal(
      `Email,First Name,plan,notes,"${HOSTILE.replaceAll('"', '""')}",rejected_line,rejected_reason`,
    );
    expect(lines[1]).to.match(/^not-an-email,Bob,trial,,<script>alert\(1\)<\/script>,3,email: /);
    expect(lines[2]).to.match(/^,Nobody,free,,w,6,email: /);
    expect(lines).to.have.length(4);

    const after = await consolePage(client, `${app}/imports`);
    expectInert(after.text, 'the list');
    expect(after.text).to.contain(`href="${path}"`);
    expect(after.text).to.contain('badge-success">finished');
  });

  it('imports NDJSON events: keys shown, progress polled by htmx, refused lines with their text', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    const content = [
      JSON.stringify({ type: 'order.completed', email: 'ada@example.com', metadata: { total: 12 } }),
      '{not json',
      JSON.stringify({ email: 'bob@example.com' }),
      JSON.stringify({ type: 'page.viewed', email: 'eve@example.com', [HOSTILE]: 1 }),
      // Refused by the merge, not the reader: no such contact.
      JSON.stringify({ type: 'page.viewed', contactId: UNKNOWN_CONTACT }),
      '',
    ].join('\n');
    const { page, path } = await uploaded(client, app, 'events', 'history.ndjson', content);
    expectInert(page.text);
    expect(page.text).to.contain('<td>type</td><td>the type field</td>');
    expect(page.text).to.match(
      /<td>&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt;<\/td><td><span class="badge badge-danger">not a field/,
    );
    expect(page.text).to.match(/<td class="num">2<\/td>[\s\S]*?is not valid JSON/);

    await postConsoleForm(client, path, { _csrf: page.token, action: 'start' });
    const fragment = await client.get(`${path}/progress`);
    if (fragment.status === 200) {
      expect(fragment.text).to.match(
        /^<section id="import-progress"[^>]* hx-get="[^"]+\/progress" hx-trigger="every 1s"/,
      );
      expect(fragment.text).to.not.contain('<html');
    } else {
      expect(fragment.status).to.equal(204);
      expect(fragment.headers.get('hx-refresh')).to.equal('true');
    }
    const done = await whenEnded(client, path);
    expect(done.text).to.match(/<dt>Events imported<\/dt><dd>1<\/dd>/);
    expect(done.text).to.match(/<dt>Refused<\/dt><dd>4<\/dd>/);
    const ended = await client.get(`${path}/progress`);
    expect(ended.status).to.equal(204);
    expect(ended.headers.get('hx-refresh')).to.equal('true');

    const rejects = await client.get(`${path}/rejects`);
    expect(rejects.headers.get('content-type')).to.match(/^application\/x-ndjson/);
    const rows = rejects.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows.map((row) => [row.line, row.row])).to.deep.equal([
      [2, '{not json'],
      [3, JSON.stringify({ email: 'bob@example.com' })],
      [4, JSON.stringify({ type: 'page.viewed', email: 'eve@example.com', [HOSTILE]: 1 })],
      [5, JSON.stringify({ type: 'page.viewed', contactId: UNKNOWN_CONTACT })],
    ]);
    expect(rows[0].reason).to.equal('is not valid JSON');
    expect(rows[1].reason).to.match(/^type: /);
  });

  it('imports a CSV of events: columns to event fields and metadata', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    const csv =
      'Event,E-mail address,occurred_at,total,ignored\norder.completed,ada@example.com,2025-03-14T09:26:53.000Z,129.5,x\n,bob@example.com,,1,y\n';
    const { page, path } = await uploaded(client, app, 'events', 'orders.csv', csv);
    expect([0, 1, 2, 3, 4].map((i) => selected(page.text, i))).to.deep.equal([
      'field:type',
      'field:email',
      'field:timestamp',
      'metadata',
      'metadata',
    ]);
    expect(page.text).to.contain('event field utmSource');
    const fields = {
      'target.0': 'field:type',
      'target.1': 'field:email',
      'target.2': 'field:timestamp',
      'target.3': 'metadata',
      'target.4': 'ignore',
    };
    await postConsoleForm(client, path, { _csrf: page.token, ...fields, action: 'start' });
    const done = await whenEnded(client, path);
    expect(done.text).to.match(/<dt>Events imported<\/dt><dd>1<\/dd>/);
    expect(done.text).to.match(/<td class="num">3<\/td><td><span class="break">type: /);
    const event = await server().context.db.one(sql.type(
      z.object({ type: z.string(), metadata: z.unknown(), occurred_at: z.string() }),
    )`
      select type, metadata, occurred_at from events where workspace_id = ${workspaceId}`);
    expect(event).to.deep.equal({
      type: 'order.completed',
      metadata: { total: '129.5' },
      occurred_at: '2025-03-14T09:26:53.000Z',
    });
  });

  it('shows the progress while the worker runs it: phase, rows read, refused so far', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    const known = await client.post(`/api/workspaces/${workspaceId}/contacts`, { email: 'ada@example.com' });
    expect(known.status, known.text).to.equal(201);
    const csv = 'email,plan\nada@example.com,pro\nbad,x\nbob@example.com,trial\nworse,y\n';
    const { page, path } = await uploaded(client, app, 'contacts', 'people.csv', csv);
    // A contact the import updates is held: the import waits in its merge, its reading done.
    const holder = new pg.Client({ connectionString: server().databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from contacts where workspace_id = $1 for update', [workspaceId]);
      await postConsoleForm(client, path, {
        _csrf: page.token,
        'target.0': 'field:email',
        'target.1': 'attribute',
        action: 'start',
      });
      const deadline = Date.now() + 60_000;
      let fragment = await client.get(`${path}/progress`);
      while (!fragment.text.includes('merging contacts') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        fragment = await client.get(`${path}/progress`);
      }
      expect(fragment.status).to.equal(200);
      expect(fragment.text).to.contain('badge-warning">running</span> merging contacts');
      expect(fragment.text).to.contain('<dt>Rows read</dt><dd>4</dd>');
      expect(fragment.text).to.contain('<dt>Refused so far</dt><dd>2</dd>');
      expect(fragment.text).to.contain('<progress id="import-share" max="100" value="100">');
      const running = await consolePage(client, path);
      expect(running.text).to.contain(`<a href="${path}">Refresh</a>`);
      // Held past the worker pool's client-side query bound: the merge runs on a pool of its own.
      const { config } = server().context;
      const bound = config.DATABASE_QUERY_TIMEOUT_MS ?? config.DATABASE_STATEMENT_TIMEOUT_MS + 2000;
      await new Promise((resolve) => setTimeout(resolve, bound + 1000));
    } finally {
      await holder.query('commit');
      await holder.end();
    }
    const done = await whenEnded(client, path);
    expect(done.text).to.contain('badge-success">finished');
    expect(done.text).to.match(/<dt>Contacts updated<\/dt><dd>1<\/dd>/);
    expect(done.text).to.match(/<dt>Contacts created<\/dt><dd>1<\/dd>/);
  });

  it('refuses a file over the limit, saying so, and keeps nothing of it', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    const second = await startSecondWeb({ IMPORT_UPLOAD_MAX_BYTES: 2048 });
    try {
      const { token } = await consolePage(client, `${app}/imports`);
      const headers = { cookie: client.cookieHeader };
      const list = await fetch(`${second.url}${app}/imports`, { headers });
      expect(await list.text()).to.contain('at most 2 KB');
      const form = multipart([
        { name: '_csrf', value: token },
        { name: 'kind', value: 'contacts' },
        { name: 'file', filename: 'big.csv', content: `email\n${'a@example.com\n'.repeat(400)}` },
      ]);
      const response = await fetch(`${second.url}${app}/imports`, {
        method: 'POST',
        headers: { ...headers, ...form.headers },
        body: form.body,
        redirect: 'manual',
      });
      expect(response.status).to.equal(303);
      const after = await consolePage(client, response.headers.get('location')!);
      expect(after.text).to.contain('The file is larger than the 2 KB the console takes');
      expect(after.text).to.contain('No imports yet');
    } finally {
      await second.stop();
    }
    // A form cut short (no closing boundary, as when the browser goes away mid-upload).
    const { token } = await consolePage(client, `${app}/imports`);
    const form = multipart([
      { name: '_csrf', value: token },
      { name: 'kind', value: 'contacts' },
      { name: 'file', filename: 'cut.csv', content: 'email\na@example.com\n' },
    ]);
    const cut = await client.request('POST', `${app}/imports`, {
      ...form,
      body: form.body.subarray(0, form.body.length - 30),
    });
    expect((await followRedirect(client, cut)).text).to.contain('The upload was cut short');
    const count = await server().context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      select count(*)::int as n from imports where workspace_id = ${workspaceId}
    `);
    expect(count).to.equal(0);
  });

  it('checks CSRF, lets ADMINs only, and answers 404 for another workspace’s import', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    const csv = 'email\nada@example.com\n';
    const list = await consolePage(client, `${app}/imports`);
    const forged = await upload(client, app, {
      token: 'x'.repeat(list.token.length),
      kind: 'contacts',
      filename: 'a.csv',
      content: csv,
    });
    expect(forged.status).to.equal(403);
    expect((await consolePage(client, `${app}/imports`)).text).to.contain('No imports yet');
    const noKind = await upload(client, app, {
      token: list.token,
      kind: 'people',
      filename: 'a.csv',
      content: csv,
    });
    expect((await followRedirect(client, noKind)).text).to.contain('Choose what the file holds');

    const { page, path, id } = await uploaded(client, app, 'contacts', 'a.csv', csv);
    const noToken = await postConsoleForm(client, path, { 'target.0': 'field:email', action: 'start' });
    expect(noToken.status).to.equal(403);

    const member = await memberOf(client, workspaceId, 'MEMBER');
    const memberContacts = await consolePage(member.client, `${app}/contacts`);
    expect(memberContacts.text).to.not.contain(`href="${app}/imports"`);
    await consolePage(member.client, `${app}/imports`, 403);
    await consolePage(member.client, path, 403);
    const memberUpload = await upload(member.client, app, {
      token: memberContacts.token,
      kind: 'contacts',
      filename: 'm.csv',
      content: csv,
    });
    expect(memberUpload.status).to.equal(403);
    const memberStart = await postConsoleForm(member.client, path, {
      _csrf: memberContacts.token,
      'target.0': 'field:email',
      action: 'start',
    });
    expect(memberStart.status).to.equal(403);
    expect((await member.client.get(`${path}/rejects`)).status).to.equal(403);

    const other = await workspaceWithAdmin('Other');
    const otherApp = `/app/${other.workspaceId}`;
    const otherPage = await consolePage(other.client, `${otherApp}/imports`);
    await consolePage(other.client, `${otherApp}/imports/${id}`, 404);
    await consolePage(other.client, `${otherApp}/imports/${id}/rejects`, 404);
    const crossStart = await postConsoleForm(other.client, `${otherApp}/imports/${id}`, {
      _csrf: otherPage.token,
      'target.0': 'field:email',
      action: 'start',
    });
    expect(crossStart.status).to.equal(404);
    const crossDiscard = await postConsoleForm(other.client, `${otherApp}/imports/${id}/discard`, {
      _csrf: otherPage.token,
    });
    expect(crossDiscard.status).to.equal(404);

    // Still waiting for its start, then discarded by its admin.
    expect((await consolePage(client, path)).text).to.contain('Start the import');
    const discarded = await postConsoleForm(client, `${path}/discard`, { _csrf: page.token });
    expect((await followRedirect(client, discarded)).text).to.contain('Upload discarded.');
    await consolePage(client, path, 404);
  });

  it('lists past imports newest first, 50 a page, by cursor', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    await server().context.db.query(sql.unsafe`
      insert into imports (workspace_id, id, kind, format, file_name, status, rows_read, imported, refused, finished_at)
      select ${workspaceId}, 'imp_' || lpad(n::text, 26, '0'), 'events', 'ndjson', 'file-' || n || '.ndjson',
        'finished', n, n, 0, now()
      from generate_series(1, 51) as n`);
    const first = await consolePage(client, `${app}/imports`);
    const names = (text: string) => [...text.matchAll(/>(file-\d+)\.ndjson</g)].map((m) => m[1]);
    expect(names(first.text)).to.have.length(50);
    expect(names(first.text).slice(0, 2)).to.deep.equal(['file-51', 'file-50']);
    const next = /<a href="([^"]+)" rel="next">/.exec(first.text)![1].replaceAll('&amp;', '&');
    const second = await consolePage(client, next);
    expect(names(second.text)).to.deep.equal(['file-1']);
    expect(second.text).to.contain(`<a href="${app}/imports" rel="first">`);
    expect(second.text).to.not.contain('rel="next"');
  });

  it('keeps an upload never started a day and an ended import RETENTION_IMPORTS_MS, with its file and rejects', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    const { db, config } = server().context;
    const ago = (days: number) => new Date(Date.now() - days * 24 * 3600 * 1000).toISOString();
    const rows: [string, string, string, string | null][] = [
      ['imp_old_upload', 'uploaded', ago(2), null],
      ['imp_new_upload', 'uploaded', ago(0.5), null],
      ['imp_old_end', 'finished', ago(40), ago(40)],
      ['imp_new_end', 'failed', ago(40), ago(29)],
    ];
    for (const [id, status, created, finished] of rows) {
      await db.query(sql.unsafe`
        insert into imports (workspace_id, id, kind, format, file_name, status, created_at, finished_at)
        values (${workspaceId}, ${id}, 'contacts', 'csv', 'f.csv', ${status}, ${created}, ${finished})`);
      await db.query(sql.unsafe`
        insert into import_file_chunks (workspace_id, import_id, seq, bytes) values (${workspaceId}, ${id}, 0, '\\x00')`);
      await db.query(sql.unsafe`
        insert into import_rejects (workspace_id, import_id, line, reason) values (${workspaceId}, ${id}, 2, 'r')`);
    }
    expect(config.RETENTION_IMPORTS_MS).to.equal(30 * 24 * 3600 * 1000);
    expect(await pruneBatch(db, importRetention[0], config, 100)).to.equal(2);
    const left = (table: string, column: string) =>
      db.anyFirst(
        sql.unsafe`select ${sql.identifier([column])} from ${sql.identifier([table])} where workspace_id = ${workspaceId} order by 1`,
      );
    expect(await left('imports', 'id')).to.deep.equal(['imp_new_end', 'imp_new_upload']);
    expect(await left('import_file_chunks', 'import_id')).to.deep.equal(['imp_new_end', 'imp_new_upload']);
    expect(await left('import_rejects', 'import_id')).to.deep.equal(['imp_new_end', 'imp_new_upload']);
  });
});
