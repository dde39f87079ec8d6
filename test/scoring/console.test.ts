// /app/{ws}/scoring over HTTP: the distribution as an SVG histogram, rules created, edited, enabled,
// disabled and deleted through forms, decay set and turned off; CSRF, a MEMBER as the API allows,
// another workspace's rule as 404, hostile names escaped, bad input answered with what is wrong.
import { expect } from 'chai';
import { setLeadScore } from '../segments/helpers.ts';
import { consolePage, followRedirect, postConsoleForm } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

describe('scoring: console page', () => {
  let ws: Awaited<ReturnType<typeof workspaceWithAdmin>>;
  let api: string;
  let app: string;

  before(async () => {
    ws = await workspaceWithAdmin();
    api = `/api/workspaces/${ws.workspaceId}`;
    app = `/app/${ws.workspaceId}`;
  });

  it('draws the score distribution as an SVG histogram with its figures', async () => {
    const empty = await consolePage(ws.client, `${app}/scoring`);
    expect(empty.text).to.contain('No contacts yet');
    for (const [n, score] of [0, 0, 10, 25].entries()) {
      const contact = (await ws.client.post(`${api}/contacts`, { email: `h${n}@d.test` })).body;
      if (score) await setLeadScore(contact.id, score);
    }
    const page = await consolePage(ws.client, `${app}/scoring`);
    expect(page.text).to.contain('4 contacts; 2 with a score of 0.');
    expect(page.text).to.match(/<svg role="img" aria-label="Lead scores of 4 contacts, from 0 to 25"/);
    expect(page.text.match(/<rect class="bar"/g)).to.have.length(13); // 0..25 in buckets of 2
    expect(page.text).to.contain('<title>0 to 1: 2 contacts</title>');
  });

  it('creates, edits, disables, enables and deletes a rule through its forms', async () => {
    const page = await consolePage(ws.client, `${app}/scoring`);
    const created = await postConsoleForm(ws.client, `${app}/scoring/rules`, {
      _csrf: page.token,
      name: HOSTILE,
      eventType: 'purchase',
      points: '10',
      where: '[{"path": "amount", "op": "gt", "value": 100}]',
      repeatable: 'true',
      cooldown: '2',
      cooldownUnit: 'days',
    });
    const after = await followRedirect(ws.client, created);
    expect(after.text).to.not.contain('<script>alert(1)');
    expect(after.text).to.not.contain('<img src=x');
    expect(after.text).to.contain('where amount is more than 100');
    const [rule] = (await ws.client.get(`${api}/scoring-rules`)).body.data;
    expect(rule).to.include({
      name: HOSTILE,
      eventType: 'purchase',
      points: 10,
      cooldown: 'P2D',
      active: true,
    });
    const path = `${app}/scoring/rules/${rule.id}`;
    const edit = await consolePage(ws.client, path);
    expect(edit.text).to.contain('name="cooldown" type="number" min="1" value="2"');
    await postConsoleForm(ws.client, path, {
      _csrf: edit.token,
      name: 'Big purchases',
      eventType: 'purchase',
      points: '-5',
      where: '',
      cooldown: '',
      cooldownUnit: 'days',
    });
    expect((await ws.client.get(`${api}/scoring-rules/${rule.id}`)).body).to.include({
      name: 'Big purchases',
      points: -5,
      where: null,
      cooldown: null,
      repeatable: false,
    });
    await postConsoleForm(ws.client, `${path}/active`, { _csrf: edit.token, active: 'false' });
    expect((await ws.client.get(`${api}/scoring-rules/${rule.id}`)).body.active).to.equal(false);
    const enabled = await postConsoleForm(ws.client, `${path}/active`, { _csrf: edit.token, active: 'true' });
    expect((await followRedirect(ws.client, enabled)).text).to.contain('enabled.');
    await postConsoleForm(ws.client, `${path}/delete`, { _csrf: edit.token });
    expect((await ws.client.get(`${api}/scoring-rules`)).body.data).to.deep.equal([]);
  });

  it('answers bad input with what is wrong, creating nothing', async () => {
    const page = await consolePage(ws.client, `${app}/scoring`);
    const refused = await postConsoleForm(ws.client, `${app}/scoring/rules`, {
      _csrf: page.token,
      _back: `${app}/scoring`,
      name: 'Bad',
      eventType: 'purchase',
      points: '0',
      where: '[{"path": "amount"',
    });
    const shown = await followRedirect(ws.client, refused);
    expect(shown.text).to.contain('points: must not be 0');
    expect(shown.text).to.match(/where: /);
    expect((await ws.client.get(`${api}/scoring-rules`)).body.data).to.deep.equal([]);
  });

  it('sets decay and turns it off', async () => {
    const page = await consolePage(ws.client, `${app}/scoring`);
    expect(page.text).to.contain('Decay is off');
    await postConsoleForm(ws.client, `${app}/scoring/decay`, {
      _csrf: page.token,
      points: '3',
      every: '2',
      unit: 'weeks',
    });
    expect((await ws.client.get(`${api}/scoring-settings`)).body.decay).to.deep.equal({
      points: 3,
      every: 'P2W',
    });
    const on = await consolePage(ws.client, `${app}/scoring`);
    expect(on.text).to.contain('Every P2W, each score moves 3 points towards zero');
    await postConsoleForm(ws.client, `${app}/scoring/decay`, { _csrf: page.token, off: 'true' });
    expect((await ws.client.get(`${api}/scoring-settings`)).body.decay).to.equal(null);
  });

  it('refuses forms without the CSRF token, lets a MEMBER change rules as the API does, 404s others', async () => {
    const forged = await postConsoleForm(ws.client, `${app}/scoring/rules`, {
      name: 'X',
      eventType: 'x',
      points: '1',
    });
    expect(forged.status).to.equal(403);
    expect((await ws.client.get(`${api}/scoring-rules`)).body.data).to.deep.equal([]);
    const member = await memberOf(ws.client, ws.workspaceId, 'MEMBER');
    const page = await consolePage(member.client, `${app}/scoring`);
    const created = await postConsoleForm(member.client, `${app}/scoring/rules`, {
      _csrf: page.token,
      name: 'By a member',
      eventType: 'visit',
      points: '1',
    });
    expect(created.status).to.equal(303);
    const other = await workspaceWithAdmin();
    const theirs = (
      await other.client.post(`/api/workspaces/${other.workspaceId}/scoring-rules`, {
        name: 'T',
        eventType: 'x',
        points: 1,
      })
    ).body;
    await consolePage(ws.client, `${app}/scoring/rules/${theirs.id}`, 404);
    const mine = await consolePage(ws.client, `${app}/scoring`);
    const posted = await postConsoleForm(ws.client, `${app}/scoring/rules/${theirs.id}/active`, {
      _csrf: mine.token,
      active: 'false',
    });
    expect(posted.status).to.equal(404);
    expect(
      (await other.client.get(`/api/workspaces/${other.workspaceId}/scoring-rules/${theirs.id}`)).body.active,
    ).to.equal(true);
    await consolePage(ws.client, `/app/${other.workspaceId}/scoring`, 404);
  });
});
