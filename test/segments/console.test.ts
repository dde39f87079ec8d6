// The segments pages over HTTP: the list with counts and sparklines, the builder without
// JavaScript (add / remove buttons, the JSON view, the count before saving, save), the live preview
// fragment, a segment's page with its members paged, delete; CSRF, roles as the API has them
// (any member may write segments), other workspaces' ids as 404, hostile names escaped.
import { expect } from 'chai';
import { createContact, track } from '../events/support.ts';
import { consolePage, followRedirect, postConsoleForm } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { createSegment, whenReady } from './helpers.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

describe('segments: console pages', () => {
  let ws: Awaited<ReturnType<typeof workspaceWithAdmin>>;
  let api: string;
  let app: string;

  before(async () => {
    ws = await workspaceWithAdmin();
    api = `/api/workspaces/${ws.workspaceId}`;
    app = `/app/${ws.workspaceId}`;
    for (const [n, email] of ['ada@acme.test', 'bob@acme.test', 'cy@other.test'].entries()) {
      const contact = await createContact(ws.client, api, { email, firstName: n === 0 ? HOSTILE : `N${n}` });
      if (n < 2) await track(ws.client, api, { type: 'purchase', contactId: contact.id });
    }
  });

  it('lists segments with their counts, rule in words and 30-day sparklines, names escaped', async () => {
    const empty = await workspaceWithAdmin();
    const none = await consolePage(empty.client, `/app/${empty.workspaceId}/segments`);
    expect(none.text).to.contain('No segments yet');
    const segment = await createSegment(
      ws.client,
      api,
      { field: 'email', op: 'ends_with', value: '@acme.test' },
      HOSTILE,
    );
    const page = await consolePage(ws.client, `${app}/segments`);
    expect(page.text).to.not.contain('<script>alert(1)');
    expect(page.text).to.not.contain('<img src=x');
    expect(page.text).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x');
    expect(page.text).to.contain(`href="${app}/segments/${segment.id}"`);
    expect(page.text).to.contain('email ends with @acme.test');
    expect(page.text).to.match(
      /<svg class="sparkline"[^>]*aria-label="Entries per day over 30 days: 2 in all"/,
    );
    expect(page.text).to.contain('+2');
  });

  it('builds a segment without JavaScript: add and remove conditions, count before saving, save', async () => {
    const blank = await consolePage(ws.client, `${app}/segments/new`);
    expect(blank.text).to.contain('name="r.0:attribute"');
    const fields = (extra: Record<string, string>) => ({
      _csrf: blank.token,
      name: 'Buyers at acme',
      ...extra,
    });
    // Replace the blank attribute condition by an event condition and a field condition.
    let form = await postConsoleForm(
      ws.client,
      `${app}/segments/new`,
      fields({ 'r:type': 'all', 'r.0:type': 'attribute', action: 'remove:r.0' }),
    );
    expect(form.status).to.equal(200);
    expect(form.text).to.not.contain('name="r.0:type"');
    form = await postConsoleForm(
      ws.client,
      `${app}/segments/new`,
      fields({ 'r:type': 'all', action: 'add:r:event' }),
    );
    expect(form.text).to.contain('name="r.0:event"');
    const rule = {
      'r:type': 'all',
      'r.0:type': 'event',
      'r.0:event': 'purchase',
      'r.0:min': '1',
      'r.0:max': '',
      'r.0:within': '30',
      'r.0:unit': 'days',
      'r.0:where': '',
      'r.1:type': 'field',
      'r.1:field': 'email',
      'r.1:op': 'ends_with',
      'r.1:value': '@acme.test',
    };
    const counted = await postConsoleForm(
      ws.client,
      `${app}/segments/new`,
      fields({ ...rule, action: 'preview' }),
    );
    expect(counted.text).to.match(/data-testid="live-count">2</);
    expect(counted.text).to.contain('bob@acme.test');
    expect(counted.text).to.not.contain('<script>alert(1)');
    const listBefore = await ws.client.get(`${api}/segments`);
    const saved = await postConsoleForm(
      ws.client,
      `${app}/segments/new`,
      fields({ ...rule, action: 'save' }),
    );
    const page = await followRedirect(ws.client, saved);
    expect(page.text).to.contain('Segment created');
    expect(page.text).to.contain(
      'at least 1 &quot;purchase&quot; event in the last 30 days and email ends with @acme.test',
    );
    const listAfter = await ws.client.get(`${api}/segments`);
    expect(listAfter.body.total).to.equal(listBefore.body.total + 1);
  });

  it('shows what is wrong with an incomplete rule and saves nothing', async () => {
    const blank = await consolePage(ws.client, `${app}/segments/new`);
    const before = (await ws.client.get(`${api}/segments`)).body.total;
    const refused = await postConsoleForm(ws.client, `${app}/segments/new`, {
      _csrf: blank.token,
      name: '',
      'r:type': 'any',
      'r.0:type': 'attribute',
      'r.0:attribute': 'seats',
      'r.0:op': 'gt',
      'r.0:value': 'many',
      'r.0:valueType': 'text',
      action: 'save',
    });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.contain('The segment was not saved');
    expect(refused.text).to.contain('name: must not be blank');
    expect(refused.text).to.contain('rules.value: must be an ISO 8601 date');
    expect(refused.text).to.contain('value="many"');
    expect((await ws.client.get(`${api}/segments`)).body.total).to.equal(before);
  });

  it('turns the JSON view into the form, and keeps bad JSON with its error', async () => {
    const blank = await consolePage(ws.client, `${app}/segments/new`);
    const json = JSON.stringify({
      any: [{ leadScore: { gte: 50 } }, { not: { attribute: 'plan', op: 'eq', value: 'free' } }],
    });
    const used = await postConsoleForm(ws.client, `${app}/segments/new`, {
      _csrf: blank.token,
      name: 'X',
      json,
      action: 'json',
    });
    expect(used.status).to.equal(200);
    expect(used.text).to.contain('name="r.0:min" value="50"');
    expect(used.text).to.contain('name="r.1.0:attribute" value="plan"');
    const bad = await postConsoleForm(ws.client, `${app}/segments/new`, {
      _csrf: blank.token,
      name: 'X',
      json: '{"any": [',
      action: 'json',
    });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain('does not hold valid JSON');
    expect(bad.text).to.contain('{&quot;any&quot;: [');
  });

  it('answers the live preview fragment for htmx', async () => {
    const blank = await consolePage(ws.client, `${app}/segments/new`);
    const fragment = await postConsoleForm(ws.client, `${app}/segments/preview`, {
      _csrf: blank.token,
      'r:type': 'all',
      'r.0:type': 'field',
      'r.0:field': 'email',
      'r.0:op': 'contains',
      'r.0:value': '@',
    });
    expect(fragment.status).to.equal(200);
    expect(fragment.text).to.match(/^<section id="live-preview"/);
    expect(fragment.text).to.match(/data-testid="live-count">3</);
  });

  it('shows a segment with its rule in words, refresh state and members paged; edits and deletes it', async () => {
    const segment = await createSegment(
      ws.client,
      api,
      { field: 'email', op: 'contains', value: '@' },
      'Everyone',
    );
    const path = `${app}/segments/${segment.id}`;
    const page = await consolePage(ws.client, path);
    expect(page.text).to.contain('email contains @');
    expect(page.text).to.contain('Kept current as contacts change');
    expect(page.text).to.contain('cy@other.test');
    expect(page.text).to.not.contain('<script>alert(1)');
    const edit = await consolePage(ws.client, `${path}/edit`);
    expect(edit.text).to.contain('name="r.0:value" value="@"');
    // It opens on the members as kept, not on the rules evaluated again.
    const members = (await ws.client.get(`${api}/segments/${segment.id}`)).body.count;
    expect(edit.text).to.match(
      new RegExp(`data-testid="live-count">${members} contacts</strong> in the segment now`),
    );
    expect(edit.text).to.contain('Some members, latest entered first');
    expect(edit.text).to.contain('cy@other.test');
    const saved = await postConsoleForm(ws.client, `${path}/edit`, {
      _csrf: edit.token,
      name: 'Everyone at acme',
      'r:type': 'all',
      'r.0:type': 'field',
      'r.0:field': 'email',
      'r.0:op': 'ends_with',
      'r.0:value': '@acme.test',
      action: 'save',
    });
    expect((await followRedirect(ws.client, saved)).text).to.contain('Everyone at acme');
    await whenReady(ws.client, api, segment.id);
    expect((await ws.client.get(`${api}/segments/${segment.id}`)).body.count).to.equal(2);
    const wrong = await postConsoleForm(ws.client, `${path}/delete`, {
      _csrf: edit.token,
      confirm: 'nope',
      _back: path,
    });
    expect((await followRedirect(ws.client, wrong)).text).to.contain('must be the segment’s name');
    const deleted = await postConsoleForm(ws.client, `${path}/delete`, {
      _csrf: edit.token,
      confirm: 'Everyone at acme',
    });
    expect((await followRedirect(ws.client, deleted)).text).to.contain('deleted');
    await consolePage(ws.client, path, 404);
  });

  it('refuses a POST without the CSRF token, and changes nothing', async () => {
    const before = (await ws.client.get(`${api}/segments`)).body.total;
    const refused = await postConsoleForm(ws.client, `${app}/segments/new`, {
      name: 'Forged',
      'r:type': 'all',
      'r.0:type': 'field',
      'r.0:field': 'email',
      'r.0:op': 'exists',
      action: 'save',
    });
    expect(refused.status).to.equal(403);
    expect((await ws.client.get(`${api}/segments`)).body.total).to.equal(before);
  });

  it("lets a MEMBER build segments, as the API does, and answers 404 for another workspace's", async () => {
    const member = await memberOf(ws.client, ws.workspaceId, 'MEMBER');
    const page = await consolePage(member.client, `${app}/segments/new`);
    const saved = await postConsoleForm(member.client, `${app}/segments/new`, {
      _csrf: page.token,
      name: 'By a member',
      'r:type': 'all',
      'r.0:type': 'field',
      'r.0:field': 'email',
      'r.0:op': 'exists',
      action: 'save',
    });
    expect(saved.status).to.equal(303);
    const other = await workspaceWithAdmin();
    const theirs = await createSegment(other.client, `/api/workspaces/${other.workspaceId}`, {
      field: 'email',
      op: 'exists',
    });
    await consolePage(ws.client, `${app}/segments/${theirs.id}`, 404);
    await consolePage(ws.client, `${app}/segments/${theirs.id}/edit`, 404);
    const mine = await consolePage(ws.client, `${app}/segments`);
    const posted = await postConsoleForm(ws.client, `${app}/segments/${theirs.id}/delete`, {
      _csrf: mine.token,
      confirm: 'Segment',
    });
    expect(posted.status).to.equal(404);
    await consolePage(ws.client, `/app/${other.workspaceId}/segments`, 404);
  });

  it("explains on the contact's segments page why the contact is in or out of each", async () => {
    const contacts = (await ws.client.get(`${api}/contacts?email=ada@acme.test`)).body.data;
    const ada = contacts[0].id;
    const inIt = await createSegment(
      ws.client,
      api,
      { all: [{ event: 'purchase' }, { field: 'email', op: 'contains', value: 'acme' }] },
      HOSTILE,
    );
    const outOf = await createSegment(ws.client, api, { leadScore: { gte: 10 } }, 'Scored');
    const list = await consolePage(ws.client, `${app}/contacts/${ada}/segments`);
    expect(list.text).to.not.contain('<script>alert(1)');
    expect(list.text).to.contain(`href="${app}/contacts/${ada}/segments/${inIt.id}/why"`);
    expect(list.text).to.contain(`href="${app}/contacts/${ada}/segments/${outOf.id}/why"`);
    const why = await consolePage(ws.client, `${app}/contacts/${ada}/segments/${inIt.id}/why`);
    expect(why.text).to.contain('All of these hold');
    expect(why.text).to.match(
      /holds<\/span> at least 1 &quot;purchase&quot; event <span class="muted">— saw 1 matching events/,
    );
    expect(why.text).to.contain('email contains acme <span class="muted">— saw “ada@acme.test”');
    expect(why.text).to.not.contain('<script>alert(1)');
    const whyNot = await consolePage(ws.client, `${app}/contacts/${ada}/segments/${outOf.id}/why`);
    expect(whyNot.text).to.contain(
      'does not hold</span> lead score is at least 10 <span class="muted">— saw 0',
    );
    expect(whyNot.text).to.contain('Not in the segment.');
    const other = await workspaceWithAdmin();
    const theirs = await createSegment(other.client, `/api/workspaces/${other.workspaceId}`, {
      field: 'email',
      op: 'exists',
    });
    await consolePage(ws.client, `${app}/contacts/${ada}/segments/${theirs.id}/why`, 404);
    await consolePage(other.client, `/app/${other.workspaceId}/contacts/${ada}/segments`, 404);
  });
});
