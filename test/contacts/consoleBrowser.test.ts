// The contacts journey in Chromium: search a contact, open it, read its timeline (axe-clean pages);
// and with JavaScript off, the same search and an attribute edited through the form.
import { expect } from 'chai';
import { suiteChromium } from '../support/browser.ts';
import {
  expectAccessible,
  horizontalOverflow,
  isolatedPage,
  signInBrowser,
  url,
} from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';

async function seed() {
  const { client, user, workspaceId } = await workspaceWithAdmin('Journey');
  const sent = await client.post(`/api/workspaces/${workspaceId}/events/batch`, {
    events: [
      { type: 'page.viewed', email: 'journey@example.com', firstName: 'Jo', metadata: { path: '/pricing' } },
      { type: 'trial.started', email: 'journey@example.com', metadata: { plan: 'pro' } },
      { type: 'page.viewed', email: 'someone.else@example.com' },
    ],
  });
  expect(sent.status, sent.text).to.be.lessThan(300);
  return { user, workspaceId };
}

describe('console: contacts in a browser', function () {
  this.timeout(60_000);
  const chromium = suiteChromium();

  it('searches as you type, opens the contact and reads its timeline', async () => {
    const { user, workspaceId } = await seed();
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await signInBrowser(page, user.email);
      expect(page.url()).to.equal(url(`/app/${workspaceId}/contacts`));
      await page.type('#q', 'journey');
      await page.waitForFunction(() => document.querySelectorAll('#results tbody tr').length === 1);
      expect(page.url()).to.contain('q=journey');
      await expectAccessible(page);
      await Promise.all([page.waitForNavigation(), page.click('#results tbody a')]);
      expect(await page.$eval('h1', (el) => el.textContent)).to.equal('journey@example.com');
      const types = await page.$$eval('#timeline tbody code', (els) => els.map((el) => el.textContent));
      expect(types).to.deep.equal(['trial.started', 'page.viewed']);
      await page.click('#timeline tbody tr:first-child summary');
      expect(await page.$eval('#timeline tbody tr:first-child pre', (el) => el.textContent)).to.contain(
        '"plan": "pro"',
      );
      await expectAccessible(page);
    } finally {
      await close();
    }
  });

  it('searches and edits an attribute with JavaScript off, at 390 px', async () => {
    const { user, workspaceId } = await seed();
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await page.setJavaScriptEnabled(false);
      await page.setViewport({ width: 390, height: 844 });
      await signInBrowser(page, user.email);
      await page.type('#q', 'journey');
      await Promise.all([page.waitForNavigation(), page.click('form[role=search] button[type=submit]')]);
      expect(await page.$$eval('#results tbody tr', (rows) => rows.length)).to.equal(1);
      await Promise.all([page.waitForNavigation(), page.click('#results tbody a')]);
      expect(page.url()).to.match(new RegExp(`/app/${workspaceId}/contacts/ct_\\w+$`));
      expect(await horizontalOverflow(page)).to.equal(0);
      await page.type('#newKey', 'plan');
      await page.type('#newValue', 'enterprise');
      await Promise.all([
        page.waitForNavigation(),
        page.click('#attributes-title ~ form button[type=submit]'),
      ]);
      expect(await page.$eval('.flash', (el) => el.textContent)).to.equal('Attributes saved.');
      expect(await page.$eval('#attrValue0', (el) => (el as HTMLInputElement).value)).to.equal('enterprise');
      expect(await horizontalOverflow(page)).to.equal(0);
    } finally {
      await close();
    }
  });
});
