// The plumbing pages in Chromium, with JavaScript on and off: create and revoke an API key (the key
// copied from the page once), edit a webhook endpoint and retry a delivery; axe-core finds no
// serious violation on any of these pages.
import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { suiteChromium } from '../support/browser.ts';
import { expectAccessible, isolatedPage, signInBrowser, url } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { createContact, createEndpoint, deliveries, useReceiver, waitForDeliveries } from './support.ts';

async function submit(page: Page, selector: string) {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

const flash = (page: Page) => page.$eval('.flash', (el) => el.textContent ?? '');

type Check = (page: Page) => Promise<void>;
/** axe-core runs as a script in the page: with JavaScript off, the pass with it on checks the same pages. */
const skip: Check = async () => {};

async function keyJourney(page: Page, workspaceId: string, accessible: Check) {
  await page.goto(url(`/app/${workspaceId}/settings/keys`));
  await accessible(page);
  await page.type('#key-name', 'Browser key');
  await page.click('input[name=scopes][value="contacts:read"]');
  await submit(page, 'form[aria-labelledby=new-key] button[type=submit]');
  expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Key created');
  const key = await page.$eval('.copy-value', (el) => el.textContent ?? '');
  expect(key).to.have.length.greaterThan(20);
  await accessible(page);
  await page.goto(url(`/app/${workspaceId}/settings/keys`));
  await submit(page, 'a[href$="/revoke"]');
  await accessible(page);
  await submit(page, 'main form button.danger');
  expect(await flash(page)).to.equal('Key “Browser key” revoked.');
  await submit(page, 'nav.tabs a[href$="/settings/publishable"]');
  await accessible(page);
  await submit(page, 'nav.tabs a[href$="/settings/channels"]');
  await accessible(page);
  return key;
}

async function webhookJourney(
  page: Page,
  ids: { workspaceId: string; endpointId: string; deliveryId: string },
  accessible: Check,
) {
  const { workspaceId, endpointId, deliveryId } = ids;
  const href = `/app/${workspaceId}/webhooks/${endpointId}`;
  await page.goto(url(`/app/${workspaceId}/webhooks`));
  await accessible(page);
  await submit(page, `a[href="${href}"]`);
  await accessible(page);
  await submit(page, `a[href="${href}/edit"]`);
  await accessible(page);
  await page.$eval('#name', (el) => {
    (el as HTMLInputElement).value = '';
  });
  await page.type('#name', 'Renamed hook');
  await submit(page, 'main form button[type=submit]');
  expect(await flash(page)).to.equal('Endpoint “Renamed hook” saved.');
  await page.click('.log details summary');
  await submit(page, `form[action$="/deliveries/${deliveryId}/retry"] button`);
  expect(await flash(page)).to.contain('Retry queued');
  await page.goto(url(`/app/${workspaceId}/webhooks/new`));
  await accessible(page);
}

describe('console plumbing pages in a browser', function () {
  this.timeout(90_000);
  const chromium = suiteChromium();
  const receiver = useReceiver();

  for (const javaScript of [true, false]) {
    it(`creates and revokes a key, edits a webhook and retries a delivery (JavaScript ${javaScript ? 'on' : 'off'})`, async () => {
      const { client, user, workspaceId } = await workspaceWithAdmin('Plumbing Co');
      const endpoint = await createEndpoint(client, workspaceId, {
        url: receiver().url,
        events: ['contact.created'],
      });
      await createContact(client, workspaceId);
      const [delivery] = await waitForDeliveries(client, workspaceId, endpoint.id, 1);
      const { page, close } = await isolatedPage(chromium.browser);
      try {
        await page.setJavaScriptEnabled(javaScript);
        await signInBrowser(page, user.email);
        const accessible = javaScript ? expectAccessible : skip;
        const key = await keyJourney(page, workspaceId, accessible);
        expect((await client.get(`/api/workspaces/${workspaceId}/keys`)).body).to.deep.equal([]);
        expect(key).to.not.equal('');
        await webhookJourney(
          page,
          { workspaceId, endpointId: endpoint.id, deliveryId: delivery.id },
          accessible,
        );
        const [saved] = (await client.get(`/api/workspaces/${workspaceId}/webhooks`)).body;
        expect(saved.name).to.equal('Renamed hook');
        await waitForDeliveries(client, workspaceId, endpoint.id, 2);
        expect((await deliveries(client, workspaceId)).map((d) => d.trigger)).to.include('manual');
      } finally {
        await close();
      }
    });
  }
});
