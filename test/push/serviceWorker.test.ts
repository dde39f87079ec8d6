// /sdk/sw.js in a real browser (headless Chromium through the DevTools protocol). A shop's site on
// another origin has the one-line /sw.js that imports ours. PushManager.subscribe() cannot work
// offline, so the push the channel really sent (captured and decrypted by the fake push service)
// is handed to the service worker with ServiceWorker.deliverPushMessage: the notification must
// show, the delivery ack reach us; a click must ack and open the step's URL.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser, CDPSession, Page, WebWorker } from 'puppeteer-core';
import { suiteChromium } from '../support/browser.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { type FakePushService, startFakePushService } from './fakePushService.ts';
import { deliveredPush, outgoing } from './support.ts';

type Shown = { title: string; options: { body: string; tag: string; data: Record<string, unknown> } };

/** What the test touches of the service worker's global scope (the DOM's webworker types are not loaded). */
type WorkerScope = {
  registration: { showNotification: (title: string, options: Shown['options']) => Promise<void> };
  clients: { openWindow: (url: string) => Promise<unknown> };
  shown: Shown[];
  dispatchEvent: (event: Event) => boolean;
};
/** Exists in the worker, where these functions run. */
declare const ExtendableEvent: typeof Event;

/** The shop: a page, and the service worker its owner writes (one importScripts line). */
async function startShop(): Promise<{ origin: string; close: () => Promise<void> }> {
  const shop = http.createServer((req, res) => {
    if (req.url === '/sw.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(`importScripts('${server().baseUrl}/sdk/sw.js');\n`);
    } else {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Shop</title><h1>Shop</h1>');
    }
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  // localhost, not 127.0.0.1: another origin than Switchboard's, and a secure context.
  const origin = `http://localhost:${(shop.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise((resolve) => shop.close(() => resolve())) };
}

/** Registers the shop's /sw.js and waits until DevTools reports it activated and running. */
async function registerWorker(browser: Browser, page: Page, cdp: CDPSession, origin: string) {
  const registrations = new Map<string, string>();
  const running = new Set<string>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
    for (const r of updated) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
  });
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const v of versions) {
      if (v.status === 'activated' && v.runningStatus === 'running') running.add(v.registrationId);
      else running.delete(v.registrationId);
    }
  });
  await cdp.send('ServiceWorker.enable');
  await page.evaluate(async () => {
    await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
  });
  const target = await browser.waitForTarget(
    (t) => t.type() === 'service_worker' && t.url().endsWith('/sw.js'),
  );
  const worker = (await target.worker()) as WebWorker;
  const registrationId = await eventually(async () => registrations.get(`${origin}/`));
  await eventually(async () => running.has(registrationId));
  // DevTools holds a worker it attaches to until its context is used: this also waits for the
  // shop's /sw.js (and our importScripts) to have run.
  expect(
    await worker.evaluate(() => typeof (self as unknown as { registration: unknown }).registration),
  ).to.equal('object');
  return { worker, registrationId };
}

describe('the service worker (/sdk/sw.js) in headless Chromium', function () {
  this.timeout(60_000);
  let push: FakePushService;
  let shop: Awaited<ReturnType<typeof startShop>>;
  // Its own browser: the test grants its default context a permission and registers a service worker.
  const chromium = suiteChromium({ ownBrowser: true });
  before(async () => {
    push = await startFakePushService();
    shop = await startShop();
  });
  after(async () => {
    await shop?.close();
    await push?.close();
  });

  it('shows the notification, acknowledges delivery, and on click acknowledges it and opens the URL', async () => {
    const { ws, contactId, messageId, payload } = await deliveredPush(push, {
      title: 'Sale',
      body: 'Half price today',
      url: 'https://shop.example.com/sale',
    });
    // Without PUBLIC_URL the ack URL names the default port; this test server listens elsewhere.
    payload.ackUrl = `${server().baseUrl}${new URL(payload.ackUrl).pathname}`;

    const { browser } = chromium;
    const context = browser.defaultBrowserContext();
    await context.overridePermissions(shop.origin, ['notifications']);
    const page = await browser.newPage();
    await page.goto(shop.origin);
    const cdp = await page.createCDPSession();
    const { worker, registrationId } = await registerWorker(browser, page, cdp, shop.origin);

    // Headless Chromium has no notification centre and getNotifications() sometimes reads back
    // nothing: the worker's showNotification is observed (and still called) instead.
    await worker.evaluate(() => {
      const scope = self as unknown as WorkerScope;
      const registration = scope.registration;
      const show = registration.showNotification.bind(registration);
      scope.shown = [];
      // Recorded before the call: the headless shell has no notification platform, and its
      // showNotification may never settle.
      registration.showNotification = (title, options) => {
        scope.shown.push({ title, options });
        return show(title, options);
      };
    });
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: shop.origin,
      registrationId,
      data: JSON.stringify(payload),
    });
    const [shown] = await eventually(async () => {
      const list = await worker.evaluate(() => (self as unknown as WorkerScope).shown);
      return list.length ? list : null;
    });
    expect(shown.title).to.equal('Sale');
    expect(shown.options).to.include({ body: 'Half price today', tag: messageId });
    expect(shown.options.data).to.include({ messageId, url: 'https://shop.example.com/sale' });
    const delivered = await eventually(async () => {
      const emitted = await outgoing(ws.workspaceId, 'message.delivered');
      return emitted.length ? emitted : null;
    });
    expect(delivered).to.deep.equal([{ messageId, contactId, channel: 'push' }]);

    // No DevTools command clicks a notification: the worker dispatches the event a click would
    // fire, carrying the shown notification's data (openWindow observed, as it needs a real click).
    const clicked = await worker.evaluate(async (data) => {
      const scope = self as unknown as WorkerScope;
      const opened: string[] = [];
      let closed = false;
      const pending: Promise<unknown>[] = [];
      scope.clients.openWindow = async (url: string) => {
        opened.push(String(url));
        return null;
      };
      const event = new ExtendableEvent('notificationclick');
      Object.defineProperty(event, 'notification', {
        value: {
          data,
          close: () => {
            closed = true;
          },
        },
      });
      Object.defineProperty(event, 'waitUntil', {
        value: (promise: Promise<unknown>) => pending.push(promise),
      });
      scope.dispatchEvent(event);
      await Promise.all(pending);
      return { opened, closed, waited: pending.length };
    }, shown.options.data);
    expect(clicked).to.deep.equal({ opened: ['https://shop.example.com/sale'], closed: true, waited: 1 });
    expect(await outgoing(ws.workspaceId, 'push.clicked')).to.deep.equal([{ contactId, messageId }]);
    expect(await outgoing(ws.workspaceId, 'message.opened')).to.deep.equal([
      { messageId, contactId, channel: 'push' },
    ]);
    await page.close();
  });
});
