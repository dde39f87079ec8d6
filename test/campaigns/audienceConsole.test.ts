// A broadcast's audience in the console (…/campaigns/{id}/audience): the API's dry run as a page —
// how many it will reach, each reason the others will not with its count and sample — linked from
// the draft's page and its activate confirmation; readable by a member, another workspace's 404.
import { expect } from 'chai';
import { suiteSink } from '../messages/support.ts';
import type { Client } from '../support/client.ts';
import { consolePage, expectInert } from '../support/console.ts';
import { eventually, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { type SecondWeb, startSecondWeb } from '../support/server.ts';
import { broadcastTo, createCampaign, emailChannel, goldSegment } from './support.ts';

const HOSTILE = '"><img src=x onerror=alert(1)>@x.test';

describe('campaigns console: a broadcast audience before sending', () => {
  const sink = suiteSink();

  it('shows whom it will reach and why the others will not, linked from the draft and its confirmation', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const base = `/api/workspaces/${workspaceId}`;
    await emailChannel(client, base, sink.port);
    const gold = { tier: 'gold' };
    for (const email of ['one@audience.test', 'two@audience.test'])
      expect((await client.post(`${base}/contacts`, { email, attributes: gold })).status).to.equal(201);
    expect(
      (await client.post(`${base}/contacts`, { phone: '+33612345678', attributes: gold })).status,
    ).to.equal(201);
    const unsubscribed = await client.post(`${base}/contacts`, {
      email: 'unsub@audience.test',
      attributes: gold,
    });
    const put = await client.put(`${base}/contacts/${unsubscribed.body.id}/subscriptions`, {
      subscriptions: [{ channel: 'email', status: 'unsubscribed' }],
    });
    expect(put.status, put.text).to.equal(200);
    const campaign = await createCampaign(client, base, broadcastTo(await goldSegment(client, base)));
    const path = `/app/${workspaceId}/campaigns/${campaign.id}`;

    expect((await consolePage(client, path)).text).to.contain(`href="${path}/audience"`);
    expect((await consolePage(client, `${path}/activate`)).text).to.contain(`href="${path}/audience"`);
    const api = (await client.get(`${base}/campaigns/${campaign.id}/audience`)).body;
    expect(api.reached).to.equal(2);
    const page = (await consolePage(client, `${path}/audience`)).text;
    const main = page.slice(page.indexOf('<main'));
    expect(main).to.match(/It will reach<\/dt>\s*<dd><strong>2<\/strong> \(50\.0 %\)/);
    const row = (words: string) =>
      main.slice(main.indexOf(words), main.indexOf('</tr>', main.indexOf(words)));
    expect(row('No address on the channel')).to.contain('>1<');
    expect(row('Unsubscribed from the channel')).to.contain('>1<').and.contain('unsub@audience.test');
    expect(row('A hard bounce')).to.contain('>0<');

    // A member reads it as the API lets a member read the audience; another workspace does not.
    const member = await memberOf(client, workspaceId, 'MEMBER');
    await consolePage(member.client, `${path}/audience`);
    const other = await workspaceWithAdmin();
    await consolePage(other.client, `${path}/audience`, 404);
  });

  it('says why when there is no audience to count, and keeps hostile addresses inert', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const base = `/api/workspaces/${workspaceId}`;
    const triggered = await createCampaign(client, base, { name: 'On signup' });
    await consolePage(client, `/app/${workspaceId}/campaigns/${triggered.id}/audience`, 409);

    expect(
      (await client.post(`${base}/contacts`, { anonymousId: 'a1', attributes: { note: HOSTILE } })).status,
    ).to.equal(201);
    const segment = await client.post(`${base}/segments`, {
      name: HOSTILE,
      rules: { attribute: 'note', op: 'eq', value: HOSTILE },
    });
    await eventually(
      async () => (await client.get(`${base}/segments/${segment.body.id}`)).body.status === 'ready',
    );
    const campaign = await createCampaign(client, base, {
      name: HOSTILE,
      trigger: { type: 'broadcast', segmentId: segment.body.id },
      steps: [{ type: 'send', channel: 'email', subject: 'News', body: '<p>News</p>' }],
    });
    const page = await consolePage(client, `/app/${workspaceId}/campaigns/${campaign.id}/audience`);
    expectInert(page.text, 'audience page');
    expect(page.text).to.contain('No address on the channel');
  });

  describe('an audience larger than the live limit (a web whose limit is 2)', () => {
    let limited: SecondWeb;
    before(async () => {
      limited = await startSecondWeb({ CAMPAIGN_AUDIENCE_LIVE_LIMIT: 2 });
    });
    after(async () => {
      await limited?.stop();
    });

    /** A console request to the limited web with the client's session. */
    async function onLimited(client: Client, path: string, form?: Record<string, string>) {
      const response = await fetch(limited.url + path, {
        method: form ? 'POST' : 'GET',
        headers: {
          cookie: client.cookieHeader,
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form ? new URLSearchParams(form).toString() : undefined,
        redirect: 'manual',
      });
      return { status: response.status, headers: response.headers, text: await response.text() };
    }

    it('says a count is under way and refreshes when it ends; shows when it was counted; counts again on a CSRF-checked form', async () => {
      const { client, workspaceId } = await workspaceWithAdmin();
      const base = `/api/workspaces/${workspaceId}`;
      for (const email of ['one@kept.test', 'two@kept.test', 'three@kept.test'])
        expect(
          (await client.post(`${base}/contacts`, { email, attributes: { tier: 'gold' } })).status,
        ).to.equal(201);
      const campaign = await createCampaign(client, base, broadcastTo(await goldSegment(client, base)));
      const path = `/app/${workspaceId}/campaigns/${campaign.id}`;

      const counting = await onLimited(client, `${path}/audience`);
      expect(counting.status, counting.text.slice(0, 300)).to.equal(200);
      expect(counting.text).to.contain('being counted for the first time');
      expect(counting.text).to.contain(`hx-get="${path}/audience/counting" hx-trigger="every 2s"`);
      expect(counting.text).to.contain(`href="${path}/audience">refresh</a>`);
      // Once the worker has counted it, the poll answers "reload" and the page shows the figures.
      const ended = await eventually(async () => {
        const poll = await onLimited(client, `${path}/audience/counting`);
        return poll.status === 204 ? poll : undefined;
      });
      expect(ended.headers.get('hx-refresh')).to.equal('true');
      const counted = await onLimited(client, `${path}/audience`);
      expect(counted.text).to.match(/Counted <time datetime="[^"]+">/);
      expect(counted.text).to.match(/It will reach<\/dt>\s*<dd><strong>3<\/strong>/);
      expect(counted.text).to.contain(`action="${path}/audience/recount"`);
      // The token of the client's session (its cookie jar takes the CSRF cookie from the main web).
      const { token } = await consolePage(client, path);

      // Without the form's token: refused, nothing queued.
      const forged = await onLimited(client, `${path}/audience/recount`, { _csrf: 'x'.repeat(token.length) });
      expect(forged.status).to.equal(403);
      expect((await onLimited(client, `${path}/audience`)).text).to.not.contain('A new count is under way');
      const asked = await onLimited(client, `${path}/audience/recount`, { _csrf: token });
      expect(asked.status, asked.text.slice(0, 300)).to.equal(303);
      expect(asked.headers.get('location')).to.equal(`${path}/audience`);
      const after = await onLimited(client, `${path}/audience`);
      expect(after.text).to.contain('Counting the audience again');

      // Another workspace's admin can neither read it nor ask for a count.
      const other = await workspaceWithAdmin();
      const theirs = await consolePage(other.client, `/app/${other.workspaceId}/campaigns`);
      expect((await onLimited(other.client, `${path}/audience`)).status).to.equal(404);
      const crossed = await onLimited(other.client, `${path}/audience/recount`, { _csrf: theirs.token });
      expect(crossed.status).to.equal(404);
    });
  });
});
