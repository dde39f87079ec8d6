// A broadcast's progress while it sends: the API's figures (GET …/campaigns/{id}/progress), the
// messages a hanging provider holds counted as sending (not queued), the finish stamped by the
// worker (no read needed), the console's page and its server-sent events (an update, then the end
// when the broadcast finishes), one ticker shared by every viewer, and the rules of the new
// routes: roles, other workspaces' campaigns as 404, hostile names inert.
import { expect } from 'chai';
import type { CampaignProgress } from '../../src/campaigns/progress.ts';
import { progressHub } from '../../src/campaigns/progressStream.ts';
import { startSilentSmtpServer } from '../channels/smtpSink.ts';
import { createContact, workspace } from '../events/support.ts';
import { suiteSink } from '../messages/support.ts';
import { createSegment, whenReady } from '../segments/helpers.ts';
import type { Client } from '../support/client.ts';
import { consolePage, expectInert, followRedirect, postConsoleForm } from '../support/console.ts';
import { eventually, expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { server } from '../support/server.ts';
import { createCampaign, emailChannel } from './support.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

/** A workspace with two reachable contacts and one unsubscribed, all in a ready segment. */
async function audience(smtpPort = sink.port) {
  const { admin, base, workspaceId } = await workspace({ listening: false });
  await emailChannel(admin, base, smtpPort);
  const tag = workspaceId.slice(-8);
  for (const name of ['one', 'two', 'gone']) {
    const contact = await createContact(admin, base, {
      email: `${name}.${tag}@progress.test`,
      attributes: { tier: 'gold' },
    });
    if (name === 'gone') {
      const put = await admin.put(`${base}/contacts/${contact.id}/subscriptions`, {
        subscriptions: [{ channel: 'email', status: 'unsubscribed' }],
      });
      expect(put.status, put.text).to.equal(200);
    }
  }
  const segment = await createSegment(admin, base, { attribute: 'tier', op: 'eq', value: 'gold' });
  await whenReady(admin, base, segment.id);
  return { admin, base, workspaceId, segmentId: segment.id as string };
}

async function broadcast(
  client: Client,
  base: string,
  segmentId: string,
  extra: Record<string, unknown> = {},
) {
  return createCampaign(client, base, {
    name: HOSTILE,
    trigger: { type: 'broadcast', segmentId, ...extra },
    steps: [{ type: 'send', channel: 'email', subject: 'News', body: '<p>News</p>' }],
  });
}

type StreamEvent = { event: string; data: string };

/** Reads a server-sent event stream to its end (or `timeoutMs`), the events as they came. */
async function readStream(client: Client, path: string, timeoutMs = 20_000) {
  const response = await fetch(server().baseUrl + path, {
    headers: { cookie: client.cookieHeader, accept: 'text/event-stream' },
    signal: AbortSignal.timeout(timeoutMs),
  });
  expect(response.status).to.equal(200);
  expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
  const events: StreamEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (event) events.push({ event, data });
    }
  }
  return events;
}

const sink = suiteSink();

describe('campaigns: a broadcast progress', function () {
  this.timeout(60_000);

  it('gives its figures through the API, and the worker stamps its finish with no read', async () => {
    const { admin, base, segmentId } = await audience();
    const campaign = await broadcast(admin, base, segmentId);

    const before = await admin.get(`${base}/campaigns/${campaign.id}/progress`);
    expect(before.status, before.text).to.equal(200);
    expect(before.body).to.include({ campaignId: campaign.id, state: 'not_started', left: 0, settled: 0 });
    expect(before.body.secondsLeft).to.equal(null);

    expect((await admin.post(`${base}/campaigns/${campaign.id}/activate`)).status).to.equal(200);
    // Only the progress is read: nothing but the worker can have stamped the finish.
    const done: CampaignProgress = await eventually(async () => {
      const body = (await admin.get(`${base}/campaigns/${campaign.id}/progress`)).body;
      return body.state === 'finished' ? body : undefined;
    }, 20_000);
    expect(done.messages).to.deep.equal({
      queued: 0,
      sending: 0,
      sent: 2,
      failed: 0,
      bounced: 0,
      suppressed: 1,
    });
    expect(done).to.include({ left: 0, settled: 3, toEnroll: 0, secondsLeft: 0 });
    expect(done.notSent).to.have.length(1);
    expect(done.notSent[0]).to.include({ status: 'suppressed', count: 1 });
    expect(done.notSent[0].reason).to.match(/unsubscribed/i);
    expect(done.rate.over).to.equal('since_start');
    expect(done.rate.sentPerSecond).to.be.greaterThan(0);
    const at = (iso: string | null) => new Date(iso!).getTime();
    expect(at(done.finishedAt)).to.be.at.least(at(done.enrolledAt));
    expect(at(done.enrolledAt)).to.be.at.least(at(done.startedAt));
    const { broadcast: times } = (await admin.get(`${base}/campaigns/${campaign.id}`)).body;
    expect(times.finishedAt).to.equal(done.finishedAt);
  });

  it('counts the messages being sent apart from the queued ones while the provider holds them', async () => {
    // An SMTP server that greets and then never answers: each claimed message stays `sending`.
    const silent = await startSilentSmtpServer();
    try {
      const { admin, base, segmentId } = await audience(silent.port);
      const campaign = await broadcast(admin, base, segmentId);
      expect((await admin.post(`${base}/campaigns/${campaign.id}/activate`)).status).to.equal(200);
      const held: CampaignProgress = await eventually(async () => {
        const body = (await admin.get(`${base}/campaigns/${campaign.id}/progress`)).body;
        return body.state === 'sending' && body.messages.suppressed === 1 ? body : undefined;
      }, 20_000);
      expect(held.messages).to.deep.equal({
        queued: 0,
        sending: 2,
        sent: 0,
        failed: 0,
        bounced: 0,
        suppressed: 1,
      });
      expect(held).to.include({ state: 'sending', left: 2, settled: 1, toEnroll: 0 });
      expect(held.finishedAt).to.equal(null);
    } finally {
      await silent.close();
    }
  });

  it('refuses a campaign that is not a broadcast (409), and another workspace’s (404)', async () => {
    const { admin, base, workspaceId, segmentId } = await audience();
    const campaign = await broadcast(admin, base, segmentId);
    const event = await createCampaign(admin, base, { name: 'Event' });
    expectProblem(await admin.get(`${base}/campaigns/${event.id}/progress`), 409);

    const other = await workspaceWithAdmin();
    const otherBase = `/api/workspaces/${other.workspaceId}`;
    expectProblem(await other.client.get(`${otherBase}/campaigns/${campaign.id}/progress`), 404);
    await consolePage(other.client, `/app/${other.workspaceId}/campaigns/${campaign.id}/progress`, 404);
    const stream = await other.client.get(
      `/app/${other.workspaceId}/campaigns/${campaign.id}/progress/stream`,
    );
    expect(stream.status).to.equal(404);
    const notBroadcast = await admin.get(`/app/${workspaceId}/campaigns/${event.id}/progress`);
    expect(notBroadcast.status).to.equal(409);
  });

  it('shows the page to any member, live until it finishes; the activate form leads to it', async () => {
    const { admin, base, workspaceId, segmentId } = await audience();
    const campaign = await broadcast(admin, base, segmentId);
    const app = `/app/${workspaceId}/campaigns/${campaign.id}`;

    // The activate form: refused without its CSRF token, and then it opens the progress page.
    const confirm = await consolePage(admin, `${app}/activate`);
    const forged = await postConsoleForm(admin, `${app}/activate`, { _csrf: 'forged' });
    expect(forged.status).to.equal(403);
    expect((await admin.get(`${base}/campaigns/${campaign.id}`)).body.status).to.equal('draft');
    const activated = await postConsoleForm(admin, `${app}/activate`, { _csrf: confirm.token });
    expect(activated.headers.get('location')).to.equal(`${app}/progress`);
    const live = await followRedirect(admin, activated);
    expectInert(live.text);
    expect(live.text).to.contain('&lt;script&gt;alert(1)');

    await eventually(
      async () => (await admin.get(`${base}/campaigns/${campaign.id}/progress`)).body.finishedAt,
      20_000,
    );
    const member = await memberOf(admin, workspaceId, 'MEMBER');
    const page = await consolePage(member.client, `${app}/progress`);
    expectInert(page.text);
    expect(page.text).to.contain('badge-success">finished');
    expect(page.text).to.contain('Left the queue: 3 of 3 (100 %)');
    expect(page.text).to.match(
      /<td>suppressed<\/td><td>[^<]*unsubscribed[^<]*<\/td><td class="num">1<\/td>/i,
    );
    expect(page.text).to.contain('This broadcast has finished.');
    // Finished: no stream to follow, no reload offered.
    expect(page.text).to.not.contain('data-progress-stream');
    expect(page.headers.get('refresh')).to.equal(null);
    const campaignPage = await consolePage(member.client, app);
    expect(campaignPage.text).to.contain(`href="${app}/progress"`);
  });

  it('offers a reload without JavaScript while it sends, and sends it only when asked', async () => {
    const { admin, base, workspaceId, segmentId } = await audience();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const campaign = await broadcast(admin, base, segmentId, { sendAt: later });
    expect((await admin.post(`${base}/campaigns/${campaign.id}/activate`)).status).to.equal(200);
    const app = `/app/${workspaceId}/campaigns/${campaign.id}`;
    const page = await consolePage(admin, `${app}/progress`);
    expect(page.text).to.contain('badge-info">scheduled');
    expect(page.text).to.contain(`data-progress-stream="${app}/progress/stream"`);
    expect(page.text).to.contain(
      `<noscript> · <a href="${app}/progress?refresh=5">Reload every 5 seconds</a>`,
    );
    expect(page.headers.get('refresh')).to.equal(null);
    const reloading = await consolePage(admin, `${app}/progress?refresh=5`);
    expect(reloading.headers.get('refresh')).to.equal('5');
    expect(reloading.text).to.contain(`<a href="${app}/progress">Stop reloading</a>`);
  });

  it('streams its figures as server-sent events and ends the stream when it finishes', async () => {
    const { admin, base, workspaceId, segmentId } = await audience();
    const soon = new Date(Date.now() + 2_000).toISOString();
    const campaign = await broadcast(admin, base, segmentId, { sendAt: soon });
    expect((await admin.post(`${base}/campaigns/${campaign.id}/activate`)).status).to.equal(200);
    const stream = `/app/${workspaceId}/campaigns/${campaign.id}/progress/stream`;

    const events = await readStream(admin, stream);
    const updates = events.filter((e) => e.event === 'progress');
    expect(updates[0]!.data).to.contain('scheduled');
    expect(updates.length).to.be.at.least(2);
    expect(updates.at(-1)!.data).to.contain('badge-success">finished');
    expect(updates.at(-1)!.data).to.contain('Left the queue: 3 of 3 (100 %)');
    for (const update of updates) expectInert(update.data, 'stream');
    expect(events.at(-1)).to.deep.equal({ event: 'end', data: 'finished' });

    // A finished broadcast's stream gives its figures once and ends at once.
    const again = await readStream(admin, stream, 5_000);
    expect(again.map((e) => e.event)).to.deep.equal(['progress', 'end']);
    // Another workspace's people and the signed-out get nothing.
    const other = await workspaceWithAdmin();
    expect((await other.client.get(stream)).status).to.equal(404);
    const anonymous = await fetch(server().baseUrl + stream, { redirect: 'manual' });
    expect(anonymous.status).to.equal(303);
  });

  it('reads a watched broadcast once a tick for all its viewers', async () => {
    const { admin, base, workspaceId, segmentId } = await audience();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const campaign = await broadcast(admin, base, segmentId, { sendAt: later });
    expect((await admin.post(`${base}/campaigns/${campaign.id}/activate`)).status).to.equal(200);
    const { db, log } = server().context;
    const hub = progressHub(db, log, 50);
    const seen: (CampaignProgress | null)[][] = [[], []];
    const first = hub.watch(workspaceId, campaign.id, (p) => seen[0]!.push(p));
    const second = hub.watch(workspaceId, campaign.id, (p) => seen[1]!.push(p));
    await eventually(async () => seen[1]!.length >= 3);
    expect(hub.watched()).to.equal(1);
    // The same figures object, read once, went to both viewers.
    const shared = seen[1]!.at(-1);
    expect(seen[0]).to.include(shared);
    first();
    expect(hub.watched()).to.equal(1);
    second();
    expect(hub.watched()).to.equal(0);
  });
});
