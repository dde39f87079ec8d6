// Push tests' helpers: a workspace with its push channel, a publishable key for the shop's origin
// and its identity secret; browsers subscribed through the public API as a page would; and a
// campaign whose push step a `signup` event sends.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { activeCampaign, outgoing } from '../messages/support.ts';
import { Client } from '../support/client.ts';
import {
  eventually,
  keyClient,
  listenToEveryEvent,
  uniqueEmail,
  workspaceWithAdmin,
} from '../support/factories.ts';
import type { BrowserSubscription, FakePushService } from './fakePushService.ts';

export const SHOP_ORIGIN = 'https://shop.example.com';

export async function pushWorkspace() {
  const { client: admin, workspaceId } = await workspaceWithAdmin('Acme Shop');
  await listenToEveryEvent(admin, workspaceId); // the tests read the outgoing events
  const base = `/api/workspaces/${workspaceId}`;
  const { client } = await keyClient(admin, workspaceId, [
    'messages:read',
    'contacts:read',
    'contacts:write',
    'campaigns:write',
    'events:read',
    'events:write',
  ]);
  return { admin, client, workspaceId, base, ...(await addPushChannel(admin, base)) };
}

/**
 * Sets up push on a workspace as its admin would: the channel's VAPID key pair, a publishable key
 * for the shop's origin, and identity tokens signed with the workspace's identity secret.
 */
export async function addPushChannel(admin: Client, base: string) {
  const channel = await admin.put(`${base}/channels/push`, { subject: 'mailto:ops@acme.test' });
  expect(channel.status, channel.text).to.equal(200);
  const pk = await admin.post(`${base}/publishable-keys`, { name: 'Shop', allowedOrigins: [SHOP_ORIGIN] });
  expect(pk.status, pk.text).to.equal(201);
  const secret = await admin.get(`${base}/identity-secret`);
  expect(secret.status, secret.text).to.equal(200);
  return {
    publicKey: channel.body.publicKey as string,
    pk: pk.body.key as string,
    identityToken: (value: string) =>
      createHmac('sha256', secret.body.secret as string)
        .update(value)
        .digest('hex'),
  };
}

export type PushWorkspace = Awaited<ReturnType<typeof pushWorkspace>>;

/** POST /api/public/push/subscriptions from the shop's page. */
export function postSubscription(pk: string, body: Record<string, unknown>, origin = SHOP_ORIGIN) {
  return new Client().request('POST', '/api/public/push/subscriptions', {
    json: body,
    headers: { 'x-publishable-key': pk, origin },
  });
}

/** A visitor known by email (identity token from the shop's backend) subscribes; their contact id. */
export async function subscribeByEmail(ws: PushWorkspace, email: string, subscription: BrowserSubscription) {
  const posted = await postSubscription(ws.pk, {
    subscription,
    email,
    identityToken: ws.identityToken(email),
  });
  expect(posted.status, posted.text).to.be.oneOf([200, 201]);
  const found = await ws.client.get(`${ws.base}/contacts?email=${encodeURIComponent(email)}`);
  const contact = (found.body.data ?? found.body).find((c: { email: string }) => c.email === email);
  expect(contact, found.text).to.exist;
  return contact.id as string;
}

/** A campaign sending `step` on `signup`; fires it for the contact and waits for the message. */
export async function sendPushStep(ws: PushWorkspace, contactId: string, step: Record<string, unknown>) {
  await activeCampaign(ws.client, ws.base, 'signup', [{ type: 'send', channel: 'push', ...step }]);
  const event = await ws.client.post(`${ws.base}/events`, { type: 'signup', contactId });
  expect(event.status, event.text).to.equal(201);
  return eventually(async () => {
    const listed = await ws.client.get(`${ws.base}/messages?contactId=${contactId}&channel=push`);
    return listed.body.data?.[0]?.id as string | undefined;
  });
}

/** Waits until the message reaches `status`; its detail with the timeline. */
export async function messageWhen(ws: PushWorkspace, messageId: string, status: string) {
  return eventually(async () => {
    const got = await ws.client.get(`${ws.base}/messages/${messageId}`);
    return got.body.status === status ? got.body : null;
  });
}

/**
 * A new workspace's contact with one browser, sent a push step through the fake push service: the
 * payload as the browser decrypts it.
 */
export async function deliveredPush(push: FakePushService, step: Record<string, unknown>) {
  const ws = await pushWorkspace();
  const browser = push.browser();
  const contactId = await subscribeByEmail(ws, uniqueEmail('push'), browser.subscription);
  const messageId = await sendPushStep(ws, contactId, step);
  await messageWhen(ws, messageId, 'sent');
  const request = push.received.find((r) => r.path === new URL(browser.subscription.endpoint).pathname)!;
  const payload = push.decrypt(request, browser.keys) as Record<string, string>;
  return { ws, contactId, messageId, payload };
}

export { outgoing };
