// Building a segment in Chromium: the live count and sample appear as the rule is typed, before
// anything is saved (htmx posting the form to …/segments/preview), the page passes axe, and saving
// leads to the segment's page. With JavaScript off the same form counts with its button.
import { expect } from 'chai';
import { createContact } from '../events/support.ts';
import { suiteChromium } from '../support/browser.ts';
import { expectAccessible, isolatedPage, signInBrowser, url } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';

describe('segments: the builder in a browser', function () {
  this.timeout(90_000);
  const chromium = suiteChromium();

  it('shows the live count before saving, passes axe, and saves', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('Builder Co');
    const api = `/api/workspaces/${workspaceId}`;
    for (const email of ['ana@acme.test', 'ben@acme.test', 'cat@else.test'])
      await createContact(client, api, { email });
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      const errors: string[] = [];
      page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
      await signInBrowser(page, user.email, `/app/${workspaceId}/segments/new`);
      expect(page.url()).to.equal(url(`/app/${workspaceId}/segments/new`));
      await expectAccessible(page);
      await page.type('input[name="name"]', 'Acme people');
      // The blank condition is an attribute one: change it to a contact field condition.
      await Promise.all([page.waitForNavigation(), page.click('button[value="remove:r.0"]')]);
      await Promise.all([page.waitForNavigation(), page.click('button[value="add:r:field"]')]);
      await page.select('select[name="r.0:op"]', 'ends_with');
      await page.type('input[name="r.0:value"]', '@acme.test');
      await page.waitForFunction(
        () => document.querySelector('[data-testid="live-count"]')?.textContent === '2',
        { timeout: 15_000 },
      );
      expect(await page.$eval('#live-preview', (el) => el.textContent)).to.contain('ben@acme.test');
      expect((await client.get(`${api}/segments`)).body.total).to.equal(0);
      await expectAccessible(page);
      expect(errors).to.deep.equal([]);
      await Promise.all([page.waitForNavigation(), page.click('button[value="save"]')]);
      expect(page.url()).to.match(new RegExp(`/app/${workspaceId}/segments/seg_`));
      expect(await page.$eval('main', (el) => el.textContent)).to.contain('email ends with @acme.test');
      await expectAccessible(page);
    } finally {
      await close();
    }
  });

  it('counts with its button when JavaScript is off', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('No Script Builder');
    await createContact(client, `/api/workspaces/${workspaceId}`, { email: 'only@one.test' });
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await page.setJavaScriptEnabled(false);
      await signInBrowser(page, user.email, `/app/${workspaceId}/segments/new`);
      await Promise.all([page.waitForNavigation(), page.click('button[value="add:r:leadScore"]')]);
      await page.type('input[name="r.1:max"]', '0');
      await Promise.all([page.waitForNavigation(), page.click('button[value="remove:r.0"]')]);
      await Promise.all([page.waitForNavigation(), page.click('button[value="preview"]')]);
      expect(await page.$eval('[data-testid="live-count"]', (el) => el.textContent)).to.equal('1');
    } finally {
      await close();
    }
  });
});
