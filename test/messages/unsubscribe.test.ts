// Unsubscribes: the /u/{token} page, RFC 8058 one-click POSTs (urlencoded and multipart), forged
// tokens, the webhooks, suppression of later sends, and exits from email-only campaigns.
import { expect } from 'chai';
import { z } from 'zod';
import { CHANNEL_NAMES } from '../../src/channels/index.ts';
import { sql } from '../../src/db/pool.ts';
import type { Client } from '../support/client.ts';
import { expectProblem } from '../support/factories.ts';
import { server, startSecondWeb } from '../support/server.ts';
import {
  activeCampaign,
  makeContact,
  messagingWorkspace,
  outgoing,
  type Sink,
  sendHi,
  suiteSink,
  waitForStatus,
} from './support.ts';

/** The one-click path of a sent message, read from its List-Unsubscribe header. */
async function sentMessage(client: Client, base: string, sink: Sink, contactId: string) {
  const sent = await sendHi(client, base, contactId);
  expect(sent.status, sent.text).to.equal(202);
  await waitForStatus(client, base, sent.body.id, 'sent');
  const mail = (await sink.received()).find((r) => r.headers['x-switchboard-message-id'] === sent.body.id)!;
  const url = new URL(/^<([^>]+)>$/.exec(mail.headers['list-unsubscribe'])![1]);
  return { messageId: sent.body.id as string, path: url.pathname };
}

function publicRequest(path: string, init: RequestInit = {}) {
  return fetch(server().baseUrl + path, { redirect: 'manual', ...init });
}

async function emailState(client: Client, base: string, contactId: string, channel = 'email') {
  const got = await client.get(`${base}/contacts/${contactId}/subscriptions`);
  expect(got.status, got.text).to.equal(200);
  return got.body.subscriptions.find((s: { channel: string }) => s.channel === channel);
}

describe('unsubscribe links and one-click', () => {
  const sink = suiteSink();

  it('GET shows the choice and changes nothing', async () => {
    const { client, base, workspaceId } = await messagingWorkspace(sink);
    const contactId = await makeContact(client, base, { email: `g.${Date.now()}@example.test` });
    const { path } = await sentMessage(client, base, sink, contactId);
    const page = await publicRequest(path);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const html = await page.text();
    expect(html).to.contain('<form method="post">').and.contain('value="channel"').and.contain('value="all"');
    expect((await emailState(client, base, contactId)).status).to.equal('subscribed');
    expect(await outgoing(workspaceId, 'unsubscribe.email')).to.deep.equal([]);
  });

  it('a urlencoded one-click POST unsubscribes (200, no redirect); a multipart repeat is 200 and emits nothing more', async () => {
    const { client, base, workspaceId } = await messagingWorkspace(sink);
    const contactId = await makeContact(client, base, { email: `o.${Date.now()}@example.test` });
    const { messageId, path } = await sentMessage(client, base, sink, contactId);
    const first = await publicRequest(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(first.status).to.equal(200);
    expect(first.headers.get('location')).to.equal(null);
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    const again = await publicRequest(path, { method: 'POST', body: form });
    expect(again.status).to.equal(200);
    expect(again.headers.get('location')).to.equal(null);

    expect(await emailState(client, base, contactId)).to.include({
      status: 'unsubscribed',
      reason: 'one_click',
      messageId,
    });
    expect(await outgoing(workspaceId, 'unsubscribe.email')).to.deep.equal([
      { contactId, channel: 'email', messageId },
    ]);
    const message = (await client.get(`${base}/messages/${messageId}`)).body;
    expect(message.timeline.map((entry: { type: string }) => entry.type)).to.deep.equal([
      'queued',
      'sent',
      'unsubscribed',
    ]);

    // Later mail is suppressed; mail the law allows (ignoreUnsubscribe) still goes.
    const next = await sendHi(client, base, contactId);
    expect((await waitForStatus(client, base, next.body.id, 'suppressed')).error).to.equal(
      'unsubscribed from email',
    );
    const receipt = await client.post(`${base}/messages`, {
      contactId,
      channel: 'email',
      subject: 'Receipt',
      html: 'x',
      ignoreUnsubscribe: true,
    });
    await waitForStatus(client, base, receipt.body.id, 'sent');
  });

  it('the page\'s "everything" button opts out globally: unsubscribe.all', async () => {
    const { client, base, workspaceId } = await messagingWorkspace(sink);
    const contactId = await makeContact(client, base, { email: `a.${Date.now()}@example.test` });
    const { path } = await sentMessage(client, base, sink, contactId);
    const posted = await publicRequest(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'scope=all',
    });
    expect(posted.status).to.equal(200);
    expect(await emailState(client, base, contactId, 'all')).to.include({
      status: 'unsubscribed',
      reason: 'link',
    });
    expect(await outgoing(workspaceId, 'unsubscribe.all')).to.deep.equal([{ contactId }]);
    const next = await sendHi(client, base, contactId);
    expect((await waitForStatus(client, base, next.body.id, 'suppressed')).error).to.equal(
      'unsubscribed from everything',
    );
  });

  it('names the sender and the masked address, escaped, under a CSP that allows nothing else', async () => {
    const { admin, client, base, workspaceId } = await messagingWorkspace(sink);
    const email = `ada.${Date.now()}@example.test`;
    const contactId = await makeContact(client, base, { email });
    const { path } = await sentMessage(client, base, sink, contactId);
    const page = await publicRequest(path);
    const html = await page.text();
    expect(html).to.contain('<strong>Acme</strong>').and.contain('<strong>a•••@example.test</strong>');
    expect(html).not.to.contain(email);
    expect(page.headers.get('content-security-policy')).to.contain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).to.contain("form-action 'self'");

    const channel = `/api/workspaces/${workspaceId}/channels/email`;
    const current = (await admin.get(channel)).body;
    const renamed = await admin.put(channel, {
      host: current.host,
      port: current.port,
      secure: false,
      fromEmail: current.fromEmail,
      fromName: `Ada's <b>Shop</b> & Co`,
    });
    expect(renamed.status, renamed.text).to.equal(200);
    const escaped = await (await publicRequest(path)).text();
    expect(escaped).to.contain('Ada&#39;s &#60;b&#62;Shop&#60;/b&#62; &#38; Co').and.not.contain('<b>Shop');
  });

  it('a second visit says "you are unsubscribed" and offers the way back, which re-subscribes', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const contactId = await makeContact(client, base, { email: `back.${Date.now()}@example.test` });
    const { path } = await sentMessage(client, base, sink, contactId);
    const post = (body: string) =>
      publicRequest(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      }).then((response) => response.text());
    const heading = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
    const buttons = (html: string) =>
      [...html.matchAll(/value="(\w+)">([^<]*)</g)].map((m) => `${m[1]}: ${m[2]}`);
    const visit = async () => (await publicRequest(path)).text();

    expect(heading(await post('scope=channel'))).to.equal('You are unsubscribed');
    const second = await visit();
    expect(heading(second)).to.equal('You are unsubscribed');
    expect(second).to.contain('sends no email messages to <strong>b•••@example.test</strong> any more');
    expect(buttons(second)).to.deep.equal([
      'resubscribe: Re-subscribe to email',
      'all: Unsubscribe from everything',
    ]);

    await post('scope=all');
    const third = await visit();
    expect(third).to.contain('any more, on any channel');
    expect(buttons(third)).to.deep.equal(['resubscribe: Re-subscribe']);

    const back = await post('scope=resubscribe');
    expect(heading(back)).to.equal('You are subscribed again');
    expect(buttons(back)).to.deep.equal([
      'channel: Unsubscribe from email',
      'all: Unsubscribe from everything',
    ]);
    expect((await emailState(client, base, contactId)).status).to.equal('subscribed');
    expect((await emailState(client, base, contactId, 'all')).status).to.equal('subscribed');
    expect(heading(await visit())).to.equal('Unsubscribe');
  });

  it('offers no way back past a spam report: the page says so and a resubscribe POST lifts nothing', async () => {
    const { client, base, workspaceId } = await messagingWorkspace(sink);
    const contactId = await makeContact(client, base, { email: `spam.${Date.now()}@example.test` });
    const { path } = await sentMessage(client, base, sink, contactId);
    await server().context.db.query(sql.typeAlias('void')`
      insert into contact_subscriptions (workspace_id, contact_id, channel, status, reason)
      values (${workspaceId}, ${contactId}, 'email', 'unsubscribed', 'complaint')`);
    const page = await (await publicRequest(path)).text();
    expect(page).to.contain('reported as spam').and.not.contain('value="resubscribe"');
    await publicRequest(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'scope=resubscribe',
    });
    expect(await emailState(client, base, contactId)).to.include({
      status: 'unsubscribed',
      reason: 'complaint',
    });
  });

  it('a forged, tampered or malformed token is 404 and changes nothing', async () => {
    const { client, base, workspaceId } = await messagingWorkspace(sink);
    const contactId = await makeContact(client, base, { email: `f.${Date.now()}@example.test` });
    const { path, messageId } = await sentMessage(client, base, sink, contactId);
    const [, , keyId, , mac] = path.split(/[/.]/);
    const otherId = messageId.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const forged = [
      `/u/${keyId}.${otherId}.${mac}`,
      `/u/${keyId}.${messageId}.${mac.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`,
      `/u/zzzzzz.${messageId}.${mac}`,
      '/u/nonsense',
    ];
    for (const bad of forged) {
      expect((await publicRequest(bad)).status, bad).to.equal(404);
      const post = await publicRequest(bad, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expect(post.status, bad).to.equal(404);
    }
    expect((await emailState(client, base, contactId)).status).to.equal('subscribed');
    expect(await outgoing(workspaceId, 'unsubscribe.email')).to.deep.equal([]);
  });

  it('limits GET and POST per client address: 429 with Retry-After, a page for GET, plain text for POST', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const contactId = await makeContact(client, base, { email: `r.${Date.now()}@example.test` });
    const { path } = await sentMessage(client, base, sink, contactId);
    const web = await startSecondWeb({
      UNSUBSCRIBE_MAX_REQUESTS_PER_IP: 3,
      UNSUBSCRIBE_WINDOW_MS: 60_000,
      trustProxy: true,
    });
    try {
      const from = (address: string, init: RequestInit = {}) =>
        fetch(web.url + path, {
          redirect: 'manual',
          ...init,
          headers: { 'x-forwarded-for': address, ...(init.headers as Record<string, string>) },
        });
      const post = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
      const allowed = [await from('10.9.0.1'), await from('10.9.0.1', { ...post, body: 'scope=channel' })];
      allowed.push(await from('10.9.0.1'));
      expect(allowed.map((response) => response.status)).to.deep.equal([200, 200, 200]);

      const page = await from('10.9.0.1');
      expect(page.status).to.equal(429);
      expect(Number(page.headers.get('retry-after'))).to.be.within(1, 60);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(await page.text()).to.contain('Try again later');
      const oneClick = await from('10.9.0.1', { ...post, body: 'List-Unsubscribe=One-Click' });
      expect(oneClick.status).to.equal(429);
      expect(Number(oneClick.headers.get('retry-after'))).to.be.within(1, 60);
      expect(oneClick.headers.get('content-type')).to.match(/^text\/plain/);

      expect((await from('10.9.0.2')).status).to.equal(200); // another address has its own count
    } finally {
      await web.stop();
    }
  });

  it("exits the contact's active enrollments in email-only campaigns, not in others", async () => {
    const { client, base } = await messagingWorkspace(sink);
    const email = `e.${Date.now()}@example.test`;
    const contactId = await makeContact(client, base, { email });
    // Each sends, then waits: both enrollments are still active when the contact unsubscribes.
    const emailOnly = await activeCampaign(client, base, 'signup', [
      { type: 'send', channel: 'email', subject: 'Welcome', body: '<p>Hi</p>' },
      { type: 'wait', duration: 'P1D' },
    ]);
    const mixed = await activeCampaign(client, base, 'signup', [
      { type: 'send', channel: 'email', subject: 'Welcome', body: '<p>Hi</p>' },
      { type: 'wait', duration: 'P1D' },
      { type: 'send', channel: 'telegram', text: 'Hello' },
    ]);
    const ingested = await client.post(`${base}/events`, { type: 'signup', contactId });
    expect(ingested.status, ingested.text).to.equal(201);
    const { path } = await sentMessage(client, base, sink, contactId);
    const posted = await publicRequest(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(posted.status).to.equal(200);
    expect(await enrollment(emailOnly, contactId)).to.deep.equal({
      status: 'exited',
      exit_reason: 'unsubscribed',
    });
    expect(await enrollment(mixed, contactId)).to.deep.equal({ status: 'active', exit_reason: null });
  });
});

async function enrollment(campaignId: string, contactId: string) {
  return server().context.db.one(sql.type(
    z.object({ status: z.string(), exit_reason: z.string().nullable() }),
  )`
    select status, exit_reason from enrollments where campaign_id = ${campaignId} and contact_id = ${contactId}
  `);
}

describe('contact subscriptions API', () => {
  it('PUT unsubscribes and resubscribes per channel, emitting unsubscribe.<channel> once', async () => {
    const { client, base, workspaceId } = await messagingWorkspace();
    const contactId = await makeContact(client, base, { email: `s.${Date.now()}@example.test` });
    const initial = await client.get(`${base}/contacts/${contactId}/subscriptions`);
    // One entry per registered channel, and `all`.
    expect(
      initial.body.subscriptions.map((s: { channel: string; status: string }) => [s.channel, s.status]),
    ).to.deep.equal([...CHANNEL_NAMES, 'all'].map((channel) => [channel, 'subscribed']));
    const off = { subscriptions: [{ channel: 'email', status: 'unsubscribed' }] };
    const put = await client.put(`${base}/contacts/${contactId}/subscriptions`, off);
    expect(put.status, put.text).to.equal(200);
    expect(put.body.subscriptions[0]).to.include({ channel: 'email', status: 'unsubscribed', reason: 'api' });
    await client.put(`${base}/contacts/${contactId}/subscriptions`, off);
    expect(await outgoing(workspaceId, 'unsubscribe.email')).to.deep.equal([
      { contactId, channel: 'email', messageId: null },
    ]);
    const on = await client.put(`${base}/contacts/${contactId}/subscriptions`, {
      subscriptions: [{ channel: 'email', status: 'subscribed' }],
    });
    expect(on.body.subscriptions[0]).to.include({ channel: 'email', status: 'subscribed', reason: null });
  });

  it("a merge keeps the secondary's opt-out and moves its messages to the primary", async () => {
    const { client, base } = await messagingWorkspace();
    const primary = await makeContact(client, base, { email: `p.${Date.now()}@example.test` });
    const secondary = await makeContact(client, base, { email: `q.${Date.now()}@example.test` });
    const sent = await sendHi(client, base, secondary);
    const off = await client.put(`${base}/contacts/${secondary}/subscriptions`, {
      subscriptions: [{ channel: 'all', status: 'unsubscribed' }],
    });
    expect(off.status, off.text).to.equal(200);
    const merged = await client.post(`${base}/contacts/merge`, {
      primaryContactId: primary,
      secondaryContactId: secondary,
    });
    expect(merged.status, merged.text).to.equal(200);
    expect(await emailState(client, base, primary, 'all')).to.include({
      status: 'unsubscribed',
      reason: 'api',
    });
    expect((await client.get(`${base}/messages/${sent.body.id}`)).body.contactId).to.equal(primary);
  });

  it('refuses bad bodies with a 400 naming the field; unknown or foreign contacts are 404', async () => {
    const { client, base } = await messagingWorkspace();
    const other = await messagingWorkspace();
    const contactId = await makeContact(client, base, { email: `b.${Date.now()}@example.test` });
    const path = `${base}/contacts/${contactId}/subscriptions`;
    const twice = await client.put(path, {
      subscriptions: [
        { channel: 'email', status: 'unsubscribed' },
        { channel: 'email', status: 'subscribed' },
      ],
    });
    const problem = expectProblem(twice, 400) as unknown as { errors: { path: string }[] };
    expect(problem.errors[0].path).to.equal('body.subscriptions.1.channel');
    expectProblem(await client.put(path, { subscriptions: [{ channel: 'fax', status: 'subscribed' }] }), 400);
    expectProblem(await client.put(path, { subscriptions: [] }), 400);
    expectProblem(await client.get(`${base}/contacts/ct_nope/subscriptions`), 404);
    expectProblem(await other.client.get(`${other.base}/contacts/${contactId}/subscriptions`), 404);
    expectProblem(
      await other.client.put(`${other.base}/contacts/${contactId}/subscriptions`, {
        subscriptions: [{ channel: 'all', status: 'unsubscribed' }],
      }),
      404,
    );
    expect((await emailState(client, base, contactId, 'all')).status).to.equal('subscribed');
  });
});
