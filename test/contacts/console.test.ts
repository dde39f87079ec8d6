// The contacts pages of the console over HTTP: the list (search, filters, sort, capped count, keyset
// paging), a contact's page with its panels, its forms (profile, attributes, subscriptions,
// deletion), and hostile data rendered inert.
import { expect } from 'chai';
import type { Client } from '../support/client.ts';
import { consolePage, expectInert, followRedirect, postConsoleForm } from '../support/console.ts';
import { eventually, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf, sql, testDb } from '../support/helpers.ts';

async function contact(client: Client, workspaceId: string, body: Record<string, unknown>) {
  const created = await client.post(`/api/workspaces/${workspaceId}/contacts`, body);
  expect(created.status, created.text).to.equal(201);
  return created.body as { id: string; email: string };
}

/** The emails of the list's rows, in order. */
function listed(text: string): string[] {
  return [...text.matchAll(/<a href="\/app\/[^/]+\/contacts\/ct_\w+">([^<]+)<\/a>/g)].map((m) => m[1]);
}

describe('console: contacts list', () => {
  let client: Client;
  let workspaceId: string;
  let list: string;

  before(async () => {
    ({ client, workspaceId } = await workspaceWithAdmin('Listing'));
    list = `/app/${workspaceId}/contacts`;
    await contact(client, workspaceId, {
      email: 'ada@analytical.example',
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '+44 20 7946 0001',
      attributes: { plan: 'pro', seats: 12 },
    });
    await contact(client, workspaceId, {
      email: 'grace@navy.example',
      firstName: 'Grace',
      lastName: 'Hopper',
      attributes: { plan: 'free' },
    });
    await contact(client, workspaceId, {
      email: 'linus@kernel.example',
      firstName: 'Linus',
      attributes: { plan: 'pro' },
    });
    await testDb().query(
      sql.unsafe`update contacts set lead_score = case email when 'ada@analytical.example' then 40 when 'grace@navy.example' then 90 else 5 end where workspace_id = ${workspaceId}`,
    );
  });

  it('lists newest first with the exact total, and says what to do when empty', async () => {
    const page = await consolePage(client, list);
    expect(listed(page.text)).to.deep.equal([
      'linus@kernel.example',
      'grace@navy.example',
      'ada@analytical.example',
    ]);
    expect(page.text).to.contain('3 contacts');
    const { client: other, workspaceId: empty } = await workspaceWithAdmin('Empty');
    const none = await consolePage(other, `/app/${empty}/contacts`);
    expect(none.text).to.contain('No contacts yet').and.contain(`POST /api/workspaces/${empty}/contacts`);
  });

  it('searches a part of the email, the name or the phone, and an attribute value', async () => {
    const search = async (query: string) => listed((await consolePage(client, `${list}?${query}`)).text);
    expect(await search('q=NAVY')).to.deep.equal(['grace@navy.example']);
    expect(await search('q=ada+love')).to.deep.equal(['ada@analytical.example']);
    expect(await search('q=7946')).to.deep.equal(['ada@analytical.example']);
    expect(await search('q=100%25')).to.deep.equal([]);
    expect(await search('attr=plan&value=pro')).to.deep.equal([
      'linus@kernel.example',
      'ada@analytical.example',
    ]);
    expect(await search('attr=seats&value=12')).to.deep.equal(['ada@analytical.example']);
    const nothing = await consolePage(client, `${list}?q=nobody`);
    expect(nothing.text).to.contain('No contact matches').and.contain('0 contacts');
  });

  it('filters by score range, segment and subscription, and sorts', async () => {
    const search = async (query: string) => listed((await consolePage(client, `${list}?${query}`)).text);
    expect(await search('scoreMin=10&scoreMax=50')).to.deep.equal(['ada@analytical.example']);
    expect(await search('sort=email')).to.deep.equal([
      'ada@analytical.example',
      'grace@navy.example',
      'linus@kernel.example',
    ]);
    expect(await search('sort=oldest')).to.deep.equal([
      'ada@analytical.example',
      'grace@navy.example',
      'linus@kernel.example',
    ]);

    const segment = await client.post(`/api/workspaces/${workspaceId}/segments`, {
      name: 'Pro <plan>',
      rules: { attribute: 'plan', op: 'eq', value: 'pro' },
    });
    expect(segment.status, segment.text).to.equal(201);
    const page = await consolePage(client, list);
    expect(page.text).to.contain(`<option value="${segment.body.id}">Pro &lt;plan&gt;</option>`);
    // A new segment's members are computed by the worker: the filter shows them once it is done.
    const members = await eventually(async () => {
      const emails = await search(`segment=${segment.body.id}`);
      return emails.length === 2 && emails;
    });
    expect(members).to.deep.equal(['linus@kernel.example', 'ada@analytical.example']);

    const grace = (await client.get(`/api/workspaces/${workspaceId}/contacts?q=grace`)).body.data[0];
    const put = await client.put(`/api/workspaces/${workspaceId}/contacts/${grace.id}/subscriptions`, {
      subscriptions: [{ channel: 'email', status: 'unsubscribed' }],
    });
    expect(put.status, put.text).to.equal(200);
    expect(await search('subscription=email:unsubscribed')).to.deep.equal(['grace@navy.example']);
    expect(await search('subscription=email:subscribed')).to.deep.equal([
      'linus@kernel.example',
      'ada@analytical.example',
    ]);
    expect(await search('subscription=push:unsubscribed')).to.deep.equal([]);

    // The email sort walks the index of emails: an anonymous contact is left out, and counted out.
    await contact(client, workspaceId, { anonymousId: 'visitor-1' });
    expect((await consolePage(client, list)).text).to.contain('4 contacts');
    const byEmail = await consolePage(client, `${list}?sort=email`);
    expect(byEmail.text).to.contain('3 contacts');
    expect(listed(byEmail.text)).to.have.length(3);
  });

  it('pages by cursor, 50 a page, every contact once, and caps the count at 10,000', async () => {
    const { client: big, workspaceId: bigWorkspace } = await workspaceWithAdmin('Big');
    await testDb().query(sql.unsafe`
      insert into contacts (workspace_id, id, email)
      select ${bigWorkspace}, 'ct_' || lpad(n::text, 26, '0'), 'person' || n || '@big.example'
      from generate_series(1, 10001) n`);
    const first = await consolePage(big, `/app/${bigWorkspace}/contacts`);
    expect(first.text).to.contain('More than 10,000 contacts');
    expect(listed(first.text)).to.have.length(50);
    expect(listed(first.text)[0]).to.equal('person10001@big.example');
    const next = /<a href="([^"]+)" rel="next">/.exec(first.text)![1].replaceAll('&amp;', '&');
    const second = await consolePage(big, next);
    expect(listed(second.text)[0]).to.equal('person9951@big.example');
    const narrowed = await consolePage(big, `/app/${bigWorkspace}/contacts?q=person999`);
    expect(narrowed.text).to.contain('11 contacts');
    const byEmail = await consolePage(big, `/app/${bigWorkspace}/contacts?sort=email`);
    const emailNext = /<a href="([^"]+)" rel="next">/.exec(byEmail.text)![1].replaceAll('&amp;', '&');
    const byEmail2 = listed((await consolePage(big, emailNext)).text);
    const byEmail1 = listed(byEmail.text);
    expect(new Set([...byEmail1, ...byEmail2]).size).to.equal(100);
    const broken = await consolePage(big, `/app/${bigWorkspace}/contacts?after=not-a-cursor`);
    expect(listed(broken.text)[0]).to.equal('person10001@big.example');
  });
});

describe('console: a contact page', () => {
  it('shows the profile, attributes, identities and every panel; merged-away ids lead to the primary', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Pages');
    const rule = await client.post(`/api/workspaces/${workspaceId}/scoring-rules`, {
      name: 'Viewed pricing',
      eventType: 'page.viewed',
      points: 5,
    });
    expect(rule.status, rule.text).to.equal(201);
    const events = await client.post(`/api/workspaces/${workspaceId}/events/batch`, {
      events: [
        { type: 'page.viewed', email: 'mia@example.com', metadata: { path: '/pricing' } },
        { type: 'page.viewed', email: 'mia@example.com', metadata: { path: '/pricing' } },
        { type: 'signed.up', email: 'mia@example.com', metadata: { plan: 'pro' } },
      ],
    });
    expect(events.status, events.text).to.be.oneOf([200, 201, 202]);
    const mia = (await client.get(`/api/workspaces/${workspaceId}/contacts?q=mia`)).body.data[0];
    const other = await contact(client, workspaceId, { email: 'mia.old@example.com' });
    const merged = await client.post(`/api/workspaces/${workspaceId}/contacts/merge`, {
      primaryContactId: mia.id,
      secondaryContactId: other.id,
    });
    expect(merged.status, merged.text).to.equal(200);

    const path = `/app/${workspaceId}/contacts/${mia.id}`;
    const page = await consolePage(client, path);
    expect(page.text).to.contain('<h1>mia@example.com</h1>');
    expect(page.text)
      .to.contain('id="score"')
      .and.contain('<svg class="sparkline"')
      .and.contain('Viewed pricing');
    expect(page.text)
      .to.contain('id="segments"')
      .and.contain(`href="${path}/segments">Why in or out of each segment</a>`)
      .and.contain('id="subscriptions"')
      .and.contain('id="campaigns"');
    expect(page.text).to.contain('id="messages"').and.contain('id="timeline"');
    expect(page.text).to.contain(`<code>${other.id}</code>`);
    const timeline = page.text.slice(page.text.indexOf('id="timeline"'));
    expect(timeline.indexOf('signed.up')).to.be.lessThan(timeline.indexOf('page.viewed'));
    expect(timeline).to.contain(
      '<details><summary>Metadata</summary><pre>{\n  &quot;plan&quot;: &quot;pro&quot;\n}</pre></details>',
    );

    const filtered = await consolePage(client, `${path}?eventType=signed.up`);
    const filteredTimeline = filtered.text.slice(filtered.text.indexOf('id="timeline"'));
    expect(filteredTimeline).to.contain('signed.up').and.not.contain('<code>page.viewed</code>');

    const alias = await client.get(`/app/${workspaceId}/contacts/${other.id}`);
    expect(alias.status).to.equal(303);
    expect(alias.headers.get('location')).to.equal(path);
  });

  it('pages the timeline, 25 events at a time', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Busy');
    const events = Array.from({ length: 30 }, (_, i) => ({ type: `step.${i}`, email: 'busy@example.com' }));
    expect(
      (await client.post(`/api/workspaces/${workspaceId}/events/batch`, { events })).status,
    ).to.be.lessThan(300);
    const busy = (await client.get(`/api/workspaces/${workspaceId}/contacts?q=busy`)).body.data[0];
    const page = await consolePage(client, `/app/${workspaceId}/contacts/${busy.id}`);
    const codes = (text: string) => [...text.matchAll(/<code>(step\.\d+)<\/code>/g)].map((m) => m[1]);
    expect(codes(page.text)).to.have.length(25);
    const older = /<a href="([^"]+)" rel="next">Older events/.exec(page.text)![1].replaceAll('&amp;', '&');
    const rest = await consolePage(client, older);
    expect(codes(rest.text)).to.have.length(5);
    expect(new Set([...codes(page.text), ...codes(rest.text)]).size).to.equal(30);
  });

  it('edits the profile and attributes through forms, and says what was wrong', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Edits');
    const member = await memberOf(client, workspaceId, 'MEMBER');
    const ct = await contact(client, workspaceId, {
      email: 'edit@example.com',
      attributes: { plan: 'free', seats: 3 },
    });
    const path = `/app/${workspaceId}/contacts/${ct.id}`;
    const page = await consolePage(member.client, path);
    const saved = await postConsoleForm(member.client, `${path}/attributes`, {
      _csrf: page.token,
      attrCount: '2',
      attrKey0: 'plan',
      attrValue0: 'pro',
      attrKey1: 'seats',
      attrJson1: '1',
      attrValue1: '7',
      newKey: 'source',
      newValue: '<b>ads</b>',
    });
    const after = await followRedirect(member.client, saved);
    expect(after.text).to.contain('Attributes saved.');
    const stored = (await client.get(`/api/workspaces/${workspaceId}/contacts/${ct.id}`)).body;
    expect(stored.attributes).to.deep.equal({ plan: 'pro', seats: 7, source: '<b>ads</b>' });

    const removed = await postConsoleForm(member.client, `${path}/attributes`, {
      _csrf: page.token,
      attrCount: '1',
      attrKey0: 'source',
      attrValue0: 'x',
      attrRemove0: '1',
    });
    await followRedirect(member.client, removed);
    expect(
      (await client.get(`/api/workspaces/${workspaceId}/contacts/${ct.id}`)).body.attributes,
    ).to.deep.equal({ plan: 'pro', seats: 7 });

    const badJson = await postConsoleForm(member.client, `${path}/attributes`, {
      _csrf: page.token,
      attrCount: '1',
      attrKey0: 'seats',
      attrJson0: '1',
      attrValue0: '{oops',
      _back: path,
    });
    expect((await followRedirect(member.client, badJson)).text).to.contain(
      'attributes.seats: is not valid JSON',
    );

    const profile = await postConsoleForm(member.client, `${path}/profile`, {
      _csrf: page.token,
      email: 'Edited@Example.com',
      firstName: 'Ed',
      lastName: '',
      phone: '',
    });
    expect((await followRedirect(member.client, profile)).text)
      .to.contain('Profile saved.')
      .and.contain('<h1>edited@example.com</h1>');
    const invalid = await postConsoleForm(member.client, `${path}/profile`, {
      _csrf: page.token,
      email: 'not-an-email',
      _back: path,
    });
    const shown = await followRedirect(member.client, invalid);
    expect(shown.text).to.contain('class="flash flash-error"').and.contain('email: must be an email address');
    await contact(client, workspaceId, { email: 'taken@example.com' });
    const taken = await postConsoleForm(member.client, `${path}/profile`, {
      _csrf: page.token,
      email: 'taken@example.com',
      _back: path,
    });
    expect((await followRedirect(member.client, taken)).text).to.contain(
      'Another contact already has this email.',
    );
  });

  it('saves subscriptions per channel', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Subs');
    const ct = await contact(client, workspaceId, { email: 'subs@example.com' });
    const path = `/app/${workspaceId}/contacts/${ct.id}`;
    const page = await consolePage(client, path);
    const saved = await postConsoleForm(client, `${path}/subscriptions`, {
      _csrf: page.token,
      email: 'unsubscribed',
      push: 'subscribed',
      telegram: 'subscribed',
      all: 'subscribed',
    });
    expect((await followRedirect(client, saved)).text)
      .to.contain('Subscriptions saved.')
      .and.contain('unsubscribed (API or console)');
    const state = (await client.get(`/api/workspaces/${workspaceId}/contacts/${ct.id}/subscriptions`)).body;
    expect(state.subscriptions.find((s: { channel: string }) => s.channel === 'email').status).to.equal(
      'unsubscribed',
    );
  });

  it('deletes only once the email is typed', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Deletes');
    const ct = await contact(client, workspaceId, { email: 'gone@example.com' });
    const path = `/app/${workspaceId}/contacts/${ct.id}`;
    const page = await consolePage(client, path);
    expect(page.text).to.contain('pattern="gone@example\\.com"');
    const wrong = await postConsoleForm(client, `${path}/delete`, {
      _csrf: page.token,
      confirm: 'gone@example.org',
      _back: path,
    });
    expect((await followRedirect(client, wrong)).text).to.contain('type the email exactly to delete');
    expect((await client.get(`/api/workspaces/${workspaceId}/contacts/${ct.id}`)).status).to.equal(200);
    const deleted = await postConsoleForm(client, `${path}/delete`, {
      _csrf: page.token,
      confirm: 'gone@example.com',
    });
    expect(deleted.headers.get('location')).to.equal(`/app/${workspaceId}/contacts`);
    expect((await followRedirect(client, deleted)).text).to.contain('gone@example.com was deleted.');
    expect((await client.get(`/api/workspaces/${workspaceId}/contacts/${ct.id}`)).status).to.equal(404);
  });

  it("refuses forms without the CSRF token, and another workspace's contact is a 404 page", async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Guarded');
    const ct = await contact(client, workspaceId, { email: 'guarded@example.com' });
    const path = `/app/${workspaceId}/contacts/${ct.id}`;
    await consolePage(client, path);
    for (const action of ['profile', 'attributes', 'subscriptions', 'delete']) {
      const refused = await postConsoleForm(client, `${path}/${action}`, {
        email: 'x@example.com',
        confirm: 'guarded@example.com',
        email_: 'unsubscribed',
      });
      expect(refused.status, action).to.equal(403);
    }
    expect((await client.get(`/api/workspaces/${workspaceId}/contacts/${ct.id}`)).body.email).to.equal(
      'guarded@example.com',
    );

    const { client: stranger, workspaceId: own } = await workspaceWithAdmin('Stranger');
    await consolePage(stranger, `/app/${own}/contacts/${ct.id}`, 404);
    const page = await consolePage(stranger, `/app/${own}/contacts`);
    const crafted = await postConsoleForm(stranger, `/app/${own}/contacts/${ct.id}/delete`, {
      _csrf: page.token,
      confirm: 'guarded@example.com',
    });
    expect(crafted.status).to.equal(404);
    expect((await client.get(`/api/workspaces/${workspaceId}/contacts/${ct.id}`)).status).to.equal(200);
  });

  it('renders hostile names, attributes and event metadata inert', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Hostile');
    const hostile = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
    const events = await client.post(`/api/workspaces/${workspaceId}/events/batch`, {
      events: [
        {
          type: '<script>alert(3)</script>',
          email: 'hostile@example.com',
          firstName: hostile,
          lastName: 'javascript:alert(4)',
          metadata: { html: hostile, url: 'javascript:alert(5)' },
        },
      ],
    });
    expect(events.status, events.text).to.be.lessThan(300);
    const ct = (await client.get(`/api/workspaces/${workspaceId}/contacts?q=hostile`)).body.data[0];
    await client.patch(`/api/workspaces/${workspaceId}/contacts/${ct.id}`, {
      attributes: { [hostile]: hostile, website: 'javascript:alert(6)' },
    });
    await client.post(`/api/workspaces/${workspaceId}/segments`, {
      name: hostile,
      rules: { attribute: 'website', op: 'exists' },
    });
    for (const path of [
      `/app/${workspaceId}/contacts`,
      `/app/${workspaceId}/contacts/${ct.id}`,
      `/app/${workspaceId}/contacts?q=${encodeURIComponent(hostile)}`,
    ]) {
      const page = await consolePage(client, path);
      expectInert(page.text, path);
      expect(page.text, path).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });
});
