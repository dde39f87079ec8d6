// Web push end to end against a local HTTPS push service: the channel's key pair, a browser
// subscribed through the public API, a campaign's push step encrypted to it (decrypted here) with a
// valid VAPID JWT, and what the push service's answers do: 410 drops the subscription (and the
// contact's push when none is left), 429 waits Retry-After without holding other sends back.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { eventually, uniqueEmail } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { type FakePushService, startFakePushService } from './fakePushService.ts';
import { messageWhen, outgoing, pushWorkspace, sendPushStep, subscribeByEmail } from './support.ts';

const STEP = {
  title: 'Hi {{ contact.firstName }}',
  body: 'The sale ends tonight, {{ contact.firstName }}.',
  url: 'https://shop.example.com/sale?who={{ contact.firstName }}',
  urgency: 'high',
  ttlSeconds: 600,
  topic: 'sale',
};

const db = () => server().context.db;

async function subscriptionCount(workspaceId: string) {
  return db().oneFirst(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from push_subscriptions where workspace_id = ${workspaceId}
  `);
}

describe('web push sending', function () {
  this.timeout(30_000);
  let push: FakePushService;
  before(async () => {
    push = await startFakePushService();
  });
  after(() => push.close());

  it('encrypts the rendered step to the browser (aes128gcm) with a VAPID JWT the push service can verify', async () => {
    const ws = await pushWorkspace();
    const browser = push.browser();
    const email = uniqueEmail('ada');
    const contactId = await subscribeByEmail(ws, email, browser.subscription);
    await ws.client.patch(`${ws.base}/contacts/${contactId}`, { firstName: 'Ada' });

    const messageId = await sendPushStep(ws, contactId, STEP);
    const sent = await messageWhen(ws, messageId, 'sent');
    const request = push.received.find((r) => r.path === new URL(browser.subscription.endpoint).pathname)!;

    expect(request.headers['content-encoding']).to.equal('aes128gcm');
    expect(request.headers.ttl).to.equal('600');
    expect(request.headers.urgency).to.equal('high');
    expect(request.headers.topic).to.equal('sale');
    const notification = push.decrypt(request, browser.keys) as Record<string, string>;
    expect(notification).to.include({
      messageId,
      title: 'Hi Ada',
      body: 'The sale ends tonight, Ada.',
      url: 'https://shop.example.com/sale?who=Ada',
    });
    expect(notification.ackUrl).to.match(/\/api\/public\/push\/ack$/);
    expect(notification.ackToken).to.be.a('string');
    // The message keeps what was sent (not the signed acknowledgement).
    expect(sent.renderedSubject).to.equal('Hi Ada');
    expect(sent.rendered).to.deep.equal({
      channel: 'push',
      title: 'Hi Ada',
      body: 'The sale ends tonight, Ada.',
      url: 'https://shop.example.com/sale?who=Ada',
    });

    const { claims, publicKey, signatureValid } = request.vapid;
    expect(signatureValid).to.equal(true);
    expect(publicKey).to.equal(ws.publicKey);
    expect(claims.aud).to.equal(push.origin);
    expect(claims.sub).to.equal('mailto:ops@acme.test');
    const now = Date.now() / 1000;
    expect(claims.exp)
      .to.be.above(now)
      .and.at.most(now + 24 * 3600);

    expect(sent.providerId).to.equal(`${push.origin}/m${new URL(browser.subscription.endpoint).pathname}`);
    expect(await outgoing(ws.workspaceId, 'message.sent')).to.deep.include({
      contactId,
      channel: 'push',
      messageId,
      status: 'sent',
      campaignId: sent.campaignId,
    });
  });

  it('410: deletes the subscription, and with none left unsubscribes the contact from push (unsubscribe.push)', async () => {
    const ws = await pushWorkspace();
    const browser = push.browser();
    const contactId = await subscribeByEmail(ws, uniqueEmail('gone'), browser.subscription);
    push.answer(browser.subscription.endpoint, { status: 410 });

    const messageId = await sendPushStep(ws, contactId, STEP);
    const failed = await messageWhen(ws, messageId, 'failed');
    expect(failed.error).to.match(/^subscription gone: 410/);
    expect(await subscriptionCount(ws.workspaceId)).to.equal(0);
    expect(await outgoing(ws.workspaceId, 'unsubscribe.push')).to.deep.equal([
      { contactId, channel: 'push' },
    ]);
    const subscriptions = await ws.client.get(`${ws.base}/contacts/${contactId}/subscriptions`);
    const pushState = subscriptions.body.subscriptions.find((s: { channel: string }) => s.channel === 'push');
    expect(pushState).to.include({ status: 'unsubscribed', reason: 'provider' });
  });

  it('410 from one of two browsers: the other gets it, the gone one is deleted, the contact stays subscribed', async () => {
    const ws = await pushWorkspace();
    const gone = push.browser();
    const live = push.browser();
    const email = uniqueEmail('two');
    const contactId = await subscribeByEmail(ws, email, gone.subscription);
    await subscribeByEmail(ws, email, live.subscription);
    push.answer(gone.subscription.endpoint, { status: 410 });

    const messageId = await sendPushStep(ws, contactId, STEP);
    await messageWhen(ws, messageId, 'sent');
    expect(await subscriptionCount(ws.workspaceId)).to.equal(1);
    expect(await outgoing(ws.workspaceId, 'unsubscribe.push')).to.deep.equal([]);
  });

  it('429: waits Retry-After (not the retry schedule) and sends then, while other sends go on', async () => {
    const ws = await pushWorkspace();
    const busy = push.browser();
    const other = push.browser();
    const busyContact = await subscribeByEmail(ws, uniqueEmail('busy'), busy.subscription);
    const otherContact = await subscribeByEmail(ws, uniqueEmail('other'), other.subscription);
    push.answer(busy.subscription.endpoint, { status: 429, headers: { 'Retry-After': '4' } });

    const deferredId = await sendPushStep(ws, busyContact, STEP);
    // Queued from its creation: wait for the attempt the 429 deferred.
    const deferred = await eventually(async () => {
      const got = await ws.client.get(`${ws.base}/messages/${deferredId}`);
      return got.body.status === 'queued' && got.body.attempts >= 1 ? got.body : null;
    });
    const waited = Date.parse(deferred.nextAttemptAt) - Date.parse(deferred.updatedAt);
    // The schedule's first delay is 1 s in tests; Retry-After asked for 4.
    expect(waited).to.be.within(3_500, 4_500);

    const event = await ws.client.post(`${ws.base}/events`, { type: 'signup', contactId: otherContact });
    expect(event.status).to.equal(201);
    const otherId = await eventually(async () => {
      const listed = await ws.client.get(`${ws.base}/messages?contactId=${otherContact}&channel=push`);
      return listed.body.data?.[0]?.id as string | undefined;
    });
    const otherSent = await messageWhen(ws, otherId, 'sent');
    expect(Date.parse(otherSent.sentAt)).to.be.below(Date.parse(deferred.nextAttemptAt));

    push.answer(busy.subscription.endpoint, {
      status: 201,
      headers: { Location: 'https://push.example/m/1' },
    });
    const retried = await eventually(async () => {
      const got = await ws.client.get(`${ws.base}/messages/${deferredId}`);
      return got.body.status === 'sent' ? got.body : null;
    }, 15_000);
    expect(retried.attempts).to.equal(2);
    expect(Date.parse(retried.sentAt)).to.be.at.least(Date.parse(deferred.nextAttemptAt));
  });

  it('fails a message whose rendered payload exceeds 3993 bytes, without sending anything', async () => {
    const ws = await pushWorkspace();
    const browser = push.browser();
    const contactId = await subscribeByEmail(ws, uniqueEmail('big'), browser.subscription);
    const before = push.received.length;
    const messageId = await sendPushStep(ws, contactId, {
      title: 'Big',
      body: '{% for i in (1..400) %}0123456789{% endfor %}',
    });
    const failed = await messageWhen(ws, messageId, 'failed');
    expect(failed.error).to.match(/^payload too large: \d+ bytes; a push message holds at most 3993$/);
    expect(push.received.length).to.equal(before);
  });

  it('suppresses a push to a contact with no subscription', async () => {
    const ws = await pushWorkspace();
    const created = await ws.client.post(`${ws.base}/contacts`, { email: uniqueEmail('none') });
    const messageId = await sendPushStep(ws, created.body.id, STEP);
    const suppressed = await messageWhen(ws, messageId, 'suppressed');
    expect(suppressed.error).to.equal('the contact has no push subscription');
  });

  it('fails with "channel not configured" once the channel is removed', async () => {
    const ws = await pushWorkspace();
    const contactId = await subscribeByEmail(ws, uniqueEmail('nochan'), push.browser().subscription);
    // Removing the channel removes its subscriptions; one stored again without it (a row left
    // behind by another process) must still not be sent.
    await db().query(sql.typeAlias('void')`
      delete from channel_configs where workspace_id = ${ws.workspaceId} and channel = 'push'
    `);
    const messageId = await sendPushStep(ws, contactId, STEP);
    const failed = await messageWhen(ws, messageId, 'failed');
    expect(failed.error).to.equal('config: channel not configured');
  });
});
