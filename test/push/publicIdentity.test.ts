// What a publishable key can reach (security finding 26.1): a page's bare anonymousId is anyone's
// guess, so ids Switchboard assigns itself (`telegram:<chatId>` …) are refused, and an id whose
// contact is identified reaches a fresh anonymous visitor instead, whose answer looks the same.
// Browsers stored on a bare anonymousId are never sent a known person's messages: a merge into an
// identified contact drops them, and one identified in place is not sent to until the page
// subscribes again with the identity token. Through the real HTTP API, the fake Bot API and the
// fake push service.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { Client } from '../support/client.ts';
import { eventually, expectProblem, uniqueEmail } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { addTelegramChannel, linkChat, newChatId, postUpdate, textUpdate } from '../telegram/support.ts';
import { type FakePushService, startFakePushService } from './fakePushService.ts';
import {
  messageWhen,
  outgoing,
  type PushWorkspace,
  postSubscription,
  pushWorkspace,
  SHOP_ORIGIN,
  sendPushStep,
} from './support.ts';

const db = () => server().context.db;

const STEP = { title: 'Hi {{ contact.firstName }}', body: 'Your order, {{ contact.email }}' };

const Subscription = z.object({ contact_id: z.string(), verified: z.boolean() });

async function subscriptionOf(workspaceId: string, endpoint: string) {
  return db().maybeOne(sql.type(Subscription)`
    select contact_id, verified from push_subscriptions
    where workspace_id = ${workspaceId} and endpoint = ${endpoint}
  `);
}

async function eventCount(workspaceId: string, contactId: string, type: string) {
  return db().oneFirst(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from events
    where workspace_id = ${workspaceId} and contact_id = ${contactId} and type = ${type}
  `);
}

async function eventContact(workspaceId: string, eventId: string) {
  return db().oneFirst(sql.type(z.object({ contact_id: z.string().nullable() }))`
    select contact_id from events where workspace_id = ${workspaceId} and id = ${eventId}
  `);
}

async function pushState(ws: PushWorkspace, contactId: string) {
  const got = await ws.client.get(`${ws.base}/contacts/${contactId}/subscriptions`);
  expect(got.status, got.text).to.equal(200);
  return got.body.subscriptions.find((s: { channel: string }) => s.channel === 'push');
}

/** A publishable key that may send page_view events, for POST /api/public/events. */
async function eventsKey(ws: PushWorkspace) {
  const created = await ws.admin.post(`${ws.base}/publishable-keys`, {
    name: 'Shop events',
    allowedOrigins: [SHOP_ORIGIN],
    allowedEventTypes: ['page_view'],
  });
  expect(created.status, created.text).to.equal(201);
  return created.body.key as string;
}

function postEvent(pk: string, body: Record<string, unknown>) {
  return new Client().request('POST', '/api/public/events', {
    json: body,
    headers: { 'x-publishable-key': pk, origin: SHOP_ORIGIN },
  });
}

/** A known person (email) who once browsed as `anonymousId`, as the backend records them. */
async function knownContact(ws: PushWorkspace, anonymousId: string) {
  const created = await ws.client.post(`${ws.base}/contacts`, {
    email: uniqueEmail('known'),
    firstName: 'Ada',
    anonymousId,
  });
  expect(created.status, created.text).to.equal(201);
  return { id: created.body.id as string, email: created.body.email as string };
}

describe('publishable keys cannot take over a person’s web push', function () {
  this.timeout(60_000);
  let push: FakePushService;
  before(async () => {
    push = await startFakePushService();
  });
  after(() => push.close());

  it('refuses anonymousIds Switchboard assigns (telegram:, sb:, any case) on push and events, naming the rule, storing nothing', async () => {
    const ws = await pushWorkspace();
    const pk = await eventsKey(ws);
    const browser = push.browser();
    for (const anonymousId of [
      'telegram:123456',
      'Telegram:123456',
      ' telegram:1',
      'sb:unverified:1:x',
      'push:x',
    ]) {
      const subscribed = await postSubscription(ws.pk, { subscription: browser.subscription, anonymousId });
      expectProblem(subscribed, 400);
      expect(subscribed.body.errors, subscribed.text).to.have.length(1);
      expect(subscribed.body.errors[0].path).to.equal('body.anonymousId');
      expect(subscribed.body.errors[0].message).to.match(
        /must not start with .*"telegram:".*Switchboard assigns/,
      );
      const event = await postEvent(pk, { type: 'page_view', anonymousId });
      expectProblem(event, 400);
      expect(
        event.body.errors.map((e: { path: string }) => e.path),
        event.text,
      ).to.deep.equal(['body.anonymousId']);
    }
    expect(await subscriptionOf(ws.workspaceId, browser.subscription.endpoint)).to.equal(null);
    const stored = await ws.client.get(`${ws.base}/events`);
    expect(stored.body.data ?? stored.body, stored.text).to.deep.equal([]);
    expect(await outgoing(ws.workspaceId, 'push.subscribed')).to.deep.equal([]);
  });

  it('the Telegram takeover: a chat’s anonymousId gets nobody’s browser onto the chat, before or after it is linked', async () => {
    const ws = await addTelegramChannel(await pushWorkspace());
    const chatId = newChatId();
    // The victim writes to the bot before linking: an anonymous contact `telegram:<chatId>`.
    expect((await postUpdate(ws, textUpdate(chatId, 'hello'))).status).to.equal(200);
    const chatContact = await eventually(() =>
      db().maybeOneFirst(sql.type(z.object({ contact_id: z.string() }))`
        select contact_id from telegram_chats where workspace_id = ${ws.workspaceId} and chat_id = ${chatId}
      `),
    );
    const attacker = push.browser();
    const before = await postSubscription(ws.pk, {
      subscription: attacker.subscription,
      anonymousId: `telegram:${chatId}`,
    });
    expectProblem(before, 400);
    expect(await subscriptionOf(ws.workspaceId, attacker.subscription.endpoint)).to.equal(null);
    expect(await eventCount(ws.workspaceId, chatContact, 'push.subscribed')).to.equal(0);

    // The victim links the chat to their contact: the anonymous one is merged into it.
    const victim = await ws.client.post(`${ws.base}/contacts`, {
      email: uniqueEmail('tg'),
      firstName: 'Ann',
    });
    await ws.client.put(`${ws.base}/contacts/${victim.body.id}/subscriptions`, {
      subscriptions: [{ channel: 'push', status: 'unsubscribed' }],
    });
    await linkChat(ws, victim.body.id, chatId);
    const after = await postSubscription(ws.pk, {
      subscription: attacker.subscription,
      anonymousId: `telegram:${chatId}`,
    });
    expectProblem(after, 400);
    expect(await subscriptionOf(ws.workspaceId, attacker.subscription.endpoint)).to.equal(null);
    expect(await eventCount(ws.workspaceId, victim.body.id, 'push.subscribed')).to.equal(0);
    expect((await pushState(ws, victim.body.id)).status).to.equal('unsubscribed');

    const messageId = await sendPushStep(ws, victim.body.id, STEP);
    const suppressed = await messageWhen(ws, messageId, 'suppressed');
    expect(suppressed.error).to.equal('the contact has no push subscription');
    const path = new URL(attacker.subscription.endpoint).pathname;
    expect(push.received.filter((r) => r.path === path)).to.deep.equal([]);
  });

  it('an email-identified contact’s old anonymousId reaches a fresh anonymous visitor: no browser, opt-in or timeline entry on the person, and an answer like any other', async () => {
    const ws = await pushWorkspace();
    const victim = await knownContact(ws, 'shop-user-42');
    await ws.client.put(`${ws.base}/contacts/${victim.id}/subscriptions`, {
      subscriptions: [{ channel: 'push', status: 'unsubscribed' }],
    });
    const attacker = push.browser();
    const first = await postSubscription(ws.pk, {
      subscription: attacker.subscription,
      anonymousId: 'shop-user-42',
    });
    expect(first.status, first.text).to.equal(201);
    expect(first.body).to.deep.equal({ subscribed: true });
    const again = await postSubscription(ws.pk, {
      subscription: attacker.subscription,
      anonymousId: 'shop-user-42',
    });
    expect(again.status, again.text).to.equal(200);

    const stored = await subscriptionOf(ws.workspaceId, attacker.subscription.endpoint);
    expect(stored).to.include({ verified: false });
    expect(stored!.contact_id).to.not.equal(victim.id);
    const standIn = await ws.client.get(`${ws.base}/contacts/${stored!.contact_id}`);
    expect(standIn.body).to.include({ email: null, firstName: null });
    expect(await eventCount(ws.workspaceId, victim.id, 'push.subscribed')).to.equal(0);
    expect((await pushState(ws, victim.id)).status).to.equal('unsubscribed');
    expect(await outgoing(ws.workspaceId, 'push.subscribed')).to.deep.equal([
      { contactId: stored!.contact_id, endpoint: attacker.subscription.endpoint },
    ]);
  });

  it('public events with an identified contact’s anonymousId land on an anonymous visitor, never in the person’s timeline', async () => {
    const ws = await pushWorkspace();
    const pk = await eventsKey(ws);
    const victim = await knownContact(ws, 'visitor-known');
    const posted = await postEvent(pk, { type: 'page_view', anonymousId: 'visitor-known' });
    expect(posted.status, posted.text).to.equal(201);
    expect(posted.body).to.have.keys(['id', 'type', 'timestamp']);
    expect(await eventCount(ws.workspaceId, victim.id, 'page_view')).to.equal(0);
    const standIn = await eventContact(ws.workspaceId, posted.body.id);
    expect(standIn).to.be.a('string').and.not.equal(victim.id);
    // The same visitor goes on as one anonymous contact, not a new one per request.
    const next = await postEvent(pk, { type: 'page_view', anonymousId: 'visitor-known' });
    expect(await eventContact(ws.workspaceId, next.body.id)).to.equal(standIn);
  });

  it('a merge into an identified contact drops the browsers stored on a bare anonymousId; the identity token brings one back, verified', async () => {
    const ws = await pushWorkspace();
    const email = uniqueEmail('merge');
    const known = await ws.client.post(`${ws.base}/contacts`, { email, firstName: 'Ada' });
    const browser = push.browser();
    const anonymous = await postSubscription(ws.pk, {
      subscription: browser.subscription,
      anonymousId: 'visitor-m',
    });
    expect(anonymous.status, anonymous.text).to.equal(201);
    expect(await subscriptionOf(ws.workspaceId, browser.subscription.endpoint)).to.include({
      verified: false,
    });

    const identified = await ws.client.post(`${ws.base}/events`, {
      type: 'login',
      anonymousId: 'visitor-m',
      email,
    });
    expect(identified.status, identified.text).to.equal(201);
    expect(identified.body.contact.id).to.equal(known.body.id);
    expect(await subscriptionOf(ws.workspaceId, browser.subscription.endpoint)).to.equal(null);

    // The merged contact keeps `visitor-m`; a page posting it bare reaches a fresh visitor.
    const attacker = push.browser();
    expect(
      (await postSubscription(ws.pk, { subscription: attacker.subscription, anonymousId: 'visitor-m' }))
        .status,
    ).to.equal(201);
    expect((await subscriptionOf(ws.workspaceId, attacker.subscription.endpoint))!.contact_id).to.not.equal(
      known.body.id,
    );

    const verified = await postSubscription(ws.pk, {
      subscription: browser.subscription,
      email,
      identityToken: ws.identityToken(email),
    });
    expect(verified.status, verified.text).to.equal(201);
    expect(await subscriptionOf(ws.workspaceId, browser.subscription.endpoint)).to.deep.equal({
      contact_id: known.body.id,
      verified: true,
    });
    const messageId = await sendPushStep(ws, known.body.id, STEP);
    await messageWhen(ws, messageId, 'sent');
    const sentTo = (endpoint: string) => push.received.filter((r) => r.path === new URL(endpoint).pathname);
    expect(sentTo(browser.subscription.endpoint)).to.have.length(1);
    expect(sentTo(attacker.subscription.endpoint)).to.deep.equal([]);
  });

  it('a browser stored while its contact was anonymous is not sent to once the contact is identified in place, until the token verifies it', async () => {
    const ws = await pushWorkspace();
    const attacker = push.browser();
    const subscribed = await postSubscription(ws.pk, {
      subscription: attacker.subscription,
      anonymousId: 'visitor-p',
    });
    expect(subscribed.status, subscribed.text).to.equal(201);
    const email = uniqueEmail('inplace');
    // The backend identifies the visitor: the anonymous contact takes the email (nobody had it).
    const identified = await ws.client.post(`${ws.base}/events`, {
      type: 'login',
      anonymousId: 'visitor-p',
      email,
    });
    expect(identified.status, identified.text).to.equal(201);
    const contactId = identified.body.contact.id as string;
    expect((await subscriptionOf(ws.workspaceId, attacker.subscription.endpoint))!.contact_id).to.equal(
      contactId,
    );

    const messageId = await sendPushStep(ws, contactId, STEP);
    const suppressed = await messageWhen(ws, messageId, 'suppressed');
    expect(suppressed.error).to.equal('the contact has no push subscription');
    expect(
      push.received.filter((r) => r.path === new URL(attacker.subscription.endpoint).pathname),
    ).to.deep.equal([]);
    // The person's own page, with the token, makes that browser theirs: a new, verified subscription.
    const verified = await postSubscription(ws.pk, {
      subscription: attacker.subscription,
      email,
      identityToken: ws.identityToken(email),
    });
    expect(verified.status, verified.text).to.equal(201);
    expect(await subscriptionOf(ws.workspaceId, attacker.subscription.endpoint)).to.deep.equal({
      contact_id: contactId,
      verified: true,
    });
  });

  it('moves on to the next stand-in when one was identified too, and answers 409 once every one is', async () => {
    const ws = await pushWorkspace();
    const pk = await eventsKey(ws);
    // Only the API can give contacts these ids: here the backend identifies the id and its stand-ins.
    const ids = ['guess-me', ...Array.from({ length: 10 }, (_, n) => `sb:unverified:${n + 1}:guess-me`)];
    for (const anonymousId of ids.slice(0, 2)) await knownContact(ws, anonymousId);
    const posted = await postEvent(pk, { type: 'page_view', anonymousId: 'guess-me' });
    expect(posted.status, posted.text).to.equal(201);
    const standInId = await eventContact(ws.workspaceId, posted.body.id);
    const standIn = await ws.client.get(`${ws.base}/contacts/${standInId}`);
    expect(standIn.body).to.include({ anonymousId: 'sb:unverified:2:guess-me', email: null });

    const patched = await ws.client.patch(`${ws.base}/contacts/${standInId}`, {
      email: uniqueEmail('standin'),
    });
    expect(patched.status, patched.text).to.equal(200);
    for (const anonymousId of ids.slice(3)) await knownContact(ws, anonymousId);
    const browser = push.browser();
    const refused = await postSubscription(ws.pk, {
      subscription: browser.subscription,
      anonymousId: 'guess-me',
    });
    expect(expectProblem(refused, 409)).to.include({ type: 'urn:switchboard:problem:anonymous-id-unusable' });
    expect(await subscriptionOf(ws.workspaceId, browser.subscription.endpoint)).to.equal(null);
  });
});
