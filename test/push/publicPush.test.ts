// The push channel's configuration and the public surface browsers use: storing a subscription
// (publishable key, identity, endpoint policy), the service worker's acknowledgements, and the SDK
// scripts as served.
import { expect } from 'chai';
import { z } from 'zod';
import { pushEndpointRefusal } from '../../src/channels/index.ts';
import { parseConfig } from '../../src/config.ts';
import { sql } from '../../src/db/pool.ts';
import { Client } from '../support/client.ts';
import { expectProblem, uniqueEmail, workspaceWithAdmin } from '../support/factories.ts';
import { server, startSecondWeb } from '../support/server.ts';
import { type FakePushService, startFakePushService } from './fakePushService.ts';
import {
  deliveredPush,
  outgoing,
  postSubscription,
  pushWorkspace,
  SHOP_ORIGIN,
  subscribeByEmail,
} from './support.ts';

const db = () => server().context.db;
const fieldsOf = (response: { body: { errors?: { path: string }[] } }) =>
  (response.body.errors ?? []).map((error) => error.path);

describe('push channel configuration', () => {
  it('makes a VAPID pair on the first PUT, keeps it on the next, seals the private key, and DELETE removes it', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const path = `/api/workspaces/${workspaceId}/channels/push`;
    expectProblem(await admin.get(path), 404);
    const first = await admin.put(path, { subject: 'mailto:ops@acme.test' });
    expect(first.status, first.text).to.equal(200);
    expect(Buffer.from(first.body.publicKey, 'base64url')).to.have.length(65);
    expect(first.body).to.not.have.any.keys('privateKey', 'secrets');

    const again = await admin.put(path, { subject: 'https://acme.example/contact' });
    expect(again.body.publicKey).to.equal(first.body.publicKey);
    expect((await admin.get(path)).body).to.include({
      subject: 'https://acme.example/contact',
      publicKey: first.body.publicKey,
    });
    const stored = await db().oneFirst(sql.type(z.object({ secrets: z.string() }))`
      select secrets::text as secrets from channel_configs where workspace_id = ${workspaceId} and channel = 'push'
    `);
    expect(JSON.parse(stored).vapidPrivateKey).to.have.keys('keyId', 'iv', 'tag', 'ciphertext');

    expect((await admin.delete(path)).status).to.equal(204);
    expectProblem(await admin.get(path), 404);
  });

  it('refuses a subject that is neither mailto: nor a public https: URL, naming the field', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    for (const subject of ['ops@acme.test', 'http://acme.example', 'https://localhost', 'mailto:nobody']) {
      const response = await admin.put(`/api/workspaces/${workspaceId}/channels/push`, { subject });
      expectProblem(response, 400);
      expect(fieldsOf(response)).to.deep.equal(['body.subject']);
    }
  });
});

describe('public push subscriptions', function () {
  this.timeout(20_000);

  it('stores an anonymous visitor’s browser, emits push.subscribed once, and refreshes it on a repeat', async () => {
    const ws = await pushWorkspace();
    const subscription = {
      endpoint: 'https://127.0.0.1:9/push/anon-1',
      expirationTime: null,
      keys: {
        p256dh: Buffer.alloc(65, 4).toString('base64url'),
        auth: Buffer.alloc(16, 1).toString('base64url'),
      },
    };
    const first = await postSubscription(ws.pk, { subscription, anonymousId: 'visitor-1' });
    expect(first.status, first.text).to.equal(201);
    expect(first.body).to.deep.equal({ subscribed: true });
    expect(first.headers.get('access-control-allow-origin')).to.equal(SHOP_ORIGIN);
    const again = await postSubscription(ws.pk, { subscription, anonymousId: 'visitor-1' });
    expect(again.status, again.text).to.equal(200);

    const emitted = await outgoing(ws.workspaceId, 'push.subscribed');
    expect(emitted).to.have.length(1);
    expect(emitted[0]).to.include({ endpoint: subscription.endpoint });
    const events = await ws.client.get(`${ws.base}/events?type=push.subscribed`);
    const stored = events.body.data ?? events.body;
    expect(stored, events.text).to.have.length(1);
    expect(stored[0].contact.id).to.equal(emitted[0].contactId);
  });

  it('refuses bad input naming the field, and stores nothing', async () => {
    const ws = await pushWorkspace();
    const good = {
      endpoint: 'https://127.0.0.1:9/push/x',
      keys: {
        p256dh: Buffer.alloc(65, 4).toString('base64url'),
        auth: Buffer.alloc(16).toString('base64url'),
      },
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ subscription: good }, 'body.anonymousId'],
      [
        { subscription: { ...good, endpoint: 'http://127.0.0.1:9/push/x' }, anonymousId: 'v' },
        'body.subscription.endpoint',
      ],
      [
        { subscription: { ...good, keys: { ...good.keys, p256dh: 'short' } }, anonymousId: 'v' },
        'body.subscription.keys.p256dh',
      ],
      [
        { subscription: { ...good, keys: { ...good.keys, auth: 'x'.repeat(40) } }, anonymousId: 'v' },
        'body.subscription.keys.auth',
      ],
      [{ subscription: good, email: 'ada@example.com' }, 'body.identityToken'],
    ];
    for (const [body, field] of cases) {
      const response = await postSubscription(ws.pk, body);
      expectProblem(response, 400);
      expect(fieldsOf(response), response.text).to.deep.equal([field]);
    }
    const forged = await postSubscription(ws.pk, {
      subscription: good,
      email: 'ada@example.com',
      identityToken: 'ab'.repeat(32),
    });
    expectProblem(forged, 403);
    expect(await outgoing(ws.workspaceId, 'push.subscribed')).to.deep.equal([]);
  });

  it('answers 404 when the workspace has no push channel', async () => {
    const ws = await pushWorkspace();
    await ws.admin.delete(`${ws.base}/channels/push`);
    const response = await postSubscription(ws.pk, {
      subscription: {
        endpoint: 'https://127.0.0.1:9/push/x',
        keys: {
          p256dh: Buffer.alloc(65, 4).toString('base64url'),
          auth: Buffer.alloc(16).toString('base64url'),
        },
      },
      anonymousId: 'v',
    });
    expectProblem(response, 404);
  });

  it('lifts an earlier push opt-out when the person subscribes a browser again', async () => {
    const ws = await pushWorkspace();
    const email = uniqueEmail('back');
    const keys = {
      p256dh: Buffer.alloc(65, 4).toString('base64url'),
      auth: Buffer.alloc(16).toString('base64url'),
    };
    const contactId = await subscribeByEmail(ws, email, {
      endpoint: 'https://127.0.0.1:9/a',
      expirationTime: null,
      keys,
    });
    const path = `${ws.base}/contacts/${contactId}/subscriptions`;
    await ws.client.put(path, { subscriptions: [{ channel: 'push', status: 'unsubscribed' }] });
    await subscribeByEmail(ws, email, { endpoint: 'https://127.0.0.1:9/b', expirationTime: null, keys });
    const state = (await ws.client.get(path)).body.subscriptions.find(
      (s: { channel: string }) => s.channel === 'push',
    );
    expect(state.status).to.equal('subscribed');
  });

  it('records whether a browser was stored with the identity token or on a bare anonymousId', async () => {
    const ws = await pushWorkspace();
    const keys = {
      p256dh: Buffer.alloc(65, 4).toString('base64url'),
      auth: Buffer.alloc(16).toString('base64url'),
    };
    const anonymous = { endpoint: 'https://127.0.0.1:9/push/bare', expirationTime: null, keys };
    expect(
      (await postSubscription(ws.pk, { subscription: anonymous, anonymousId: 'visitor-v' })).status,
    ).to.equal(201);
    const vouched = { endpoint: 'https://127.0.0.1:9/push/vouched', expirationTime: null, keys };
    await subscribeByEmail(ws, uniqueEmail('vouched'), vouched);
    const rows = await db().any(sql.type(z.object({ endpoint: z.string(), verified: z.boolean() }))`
      select endpoint, verified from push_subscriptions where workspace_id = ${ws.workspaceId} order by endpoint
    `);
    expect(rows).to.deep.equal([
      { endpoint: anonymous.endpoint, verified: false },
      { endpoint: vouched.endpoint, verified: true },
    ]);
  });

  it('accepts only https: endpoints on the known push services unless PUSH_ALLOW_ANY_ENDPOINT', async () => {
    const strict = { PUSH_ALLOW_ANY_ENDPOINT: false };
    for (const ok of [
      'https://fcm.googleapis.com/fcm/send/abc',
      'https://updates.push.services.mozilla.com/wpush/v2/abc',
      'https://web.push.apple.com/QGx',
      'https://wns2-par02p.notify.windows.com/w/?token=abc',
    ]) {
      expect(pushEndpointRefusal(strict, ok), ok).to.equal(null);
    }
    for (const refused of [
      'http://fcm.googleapis.com/fcm/send/abc',
      'https://fcm.googleapis.com:8443/fcm/send/abc',
      'https://push.apple.com.evil.example/x',
      'https://169.254.169.254/latest/meta-data',
      'https://127.0.0.1/push',
      'https://user:pw@fcm.googleapis.com/x',
      'not a url',
    ]) {
      expect(pushEndpointRefusal(strict, refused), refused).to.be.a('string');
    }
    expect(() =>
      parseConfig({
        NODE_ENV: 'production',
        SESSION_SECRET: 'x'.repeat(32),
        ENCRYPTION_KEY: 'a'.repeat(64),
        PUSH_ALLOW_ANY_ENDPOINT: 'true',
      }),
    ).to.throw(/PUSH_ALLOW_ANY_ENDPOINT: may not be true in production/);

    const ws = await pushWorkspace();
    const web = await startSecondWeb(strict);
    try {
      const keys = {
        p256dh: Buffer.alloc(65, 4).toString('base64url'),
        auth: Buffer.alloc(16).toString('base64url'),
      };
      const post = (endpoint: string) =>
        fetch(`${web.url}/api/public/push/subscriptions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-publishable-key': ws.pk, origin: SHOP_ORIGIN },
          body: JSON.stringify({ subscription: { endpoint, keys }, anonymousId: 'v' }),
        });
      const local = await post('https://127.0.0.1:9/push/x');
      expect(local.status).to.equal(400);
      expect((await local.json()).errors[0].path).to.equal('body.subscription.endpoint');
      expect((await post('https://fcm.googleapis.com/fcm/send/abc')).status).to.equal(201);
    } finally {
      await web.stop();
    }
  });
});

describe('push acknowledgements', function () {
  this.timeout(20_000);
  let push: FakePushService;
  before(async () => {
    push = await startFakePushService();
  });
  after(() => push.close());

  const ack = (json: unknown) =>
    new Client().request('POST', '/api/public/push/ack', {
      json,
      headers: { origin: 'https://any.example' },
    });

  async function sentPush() {
    const sent = await deliveredPush(push, { title: 'Hi', body: 'There', url: 'https://shop.example.com/' });
    return { ...sent, ackToken: sent.payload.ackToken };
  }

  it('delivered → message.delivered once; clicked → push.clicked and message.opened once', async () => {
    const { ws, contactId, messageId, ackToken } = await sentPush();
    const delivered = await ack({ token: ackToken, event: 'delivered' });
    expect(delivered.status, delivered.text).to.equal(204);
    expect(delivered.headers.get('access-control-allow-origin')).to.equal('*');
    expect((await ack({ token: ackToken, event: 'delivered' })).status).to.equal(204);
    expect((await ack({ token: ackToken, event: 'clicked' })).status).to.equal(204);
    expect((await ack({ token: ackToken, event: 'clicked' })).status).to.equal(204);

    const ids = { messageId, contactId };
    expect(await outgoing(ws.workspaceId, 'message.delivered')).to.deep.equal([{ ...ids, channel: 'push' }]);
    expect(await outgoing(ws.workspaceId, 'push.clicked')).to.deep.equal([{ contactId, messageId }]);
    expect(await outgoing(ws.workspaceId, 'message.opened')).to.deep.equal([{ ...ids, channel: 'push' }]);
    const timeline = (await ws.client.get(`${ws.base}/messages/${messageId}`)).body.timeline.map(
      (e: { type: string }) => e.type,
    );
    expect(timeline.filter((type: string) => type === 'delivered' || type === 'opened')).to.deep.equal([
      'delivered',
      'opened',
    ]);
  });

  it('a click whose delivery ack was lost records the delivery too', async () => {
    const { ws, messageId, ackToken } = await sentPush();
    expect((await ack({ token: ackToken, event: 'clicked' })).status).to.equal(204);
    expect(await outgoing(ws.workspaceId, 'message.delivered')).to.have.length(1);
    expect((await outgoing(ws.workspaceId, 'message.opened'))[0].messageId).to.equal(messageId);
  });

  it('refuses a forged or foreign token as not found, and an unknown event naming the field', async () => {
    const { ackToken } = await sentPush();
    const [keyId, messageId] = ackToken.split('.');
    expectProblem(await ack({ token: `${keyId}.${messageId}.${'A'.repeat(22)}`, event: 'delivered' }), 404);
    expectProblem(await ack({ token: 'nonsense', event: 'delivered' }), 404);
    const bad = await ack({ token: ackToken, event: 'opened' });
    expectProblem(bad, 400);
    expect(fieldsOf(bad)).to.deep.equal(['body.event']);
  });

  it('answers the CORS preflight for any origin', async () => {
    const response = await fetch(`${server().baseUrl}/api/public/push/ack`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://any.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(response.status).to.equal(204);
    expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    expect(response.headers.get('access-control-allow-headers')).to.match(/content-type/i);
  });
});

describe('push SDK scripts', () => {
  it('serves /sdk/sw.js and /sdk/push.js as JavaScript with their caching, and answers 304 to a matching ETag', async () => {
    const sw = await fetch(`${server().baseUrl}/sdk/sw.js`);
    expect(sw.status).to.equal(200);
    expect(sw.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(sw.headers.get('cache-control')).to.equal('no-cache');
    expect(sw.headers.get('service-worker-allowed')).to.equal('/');
    expect(await sw.text()).to.include("addEventListener('pushsubscriptionchange'");
    const again = await fetch(`${server().baseUrl}/sdk/sw.js`, {
      headers: { 'if-none-match': sw.headers.get('etag')! },
    });
    expect(again.status).to.equal(304);

    const sdk = await fetch(`${server().baseUrl}/sdk/push.js`);
    expect(sdk.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(sdk.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect(sdk.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
    expect(await sdk.text()).to.include('Switchboard.push');
  });
});
