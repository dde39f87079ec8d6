// The console's shell in Chromium: signing in lands in the console, axe-core finds no serious
// violation, the keyboard shortcuts work, navigation works with JavaScript off, and a phone-wide
// screen (390 px) never scrolls sideways.
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

describe('console shell in a browser', function () {
  this.timeout(60_000);
  const chromium = suiteChromium();

  it('signs in, lands in the workspace, passes axe, and follows g c and ?', async () => {
    const { user, workspaceId } = await workspaceWithAdmin('Browser Co');
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      const errors: string[] = [];
      page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
      await signInBrowser(page, user.email, '/');
      expect(page.url()).to.equal(url(`/app/${workspaceId}/contacts`));
      expect(await page.title()).to.equal('Contacts · Browser Co · Switchboard');
      await expectAccessible(page);
      // The scripts loaded under the CSP and nothing was refused.
      expect(await page.evaluate(() => typeof (globalThis as { htmx?: unknown }).htmx)).to.equal('object');
      expect(errors).to.deep.equal([]);

      await page.keyboard.press('/');
      expect(await page.evaluate(() => document.activeElement?.id)).to.equal('q');
      await page.keyboard.press('Escape');
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press('?');
      expect(await page.$eval('#shortcuts', (el) => (el as HTMLDetailsElement).open)).to.equal(true);
      await page.goto(url(`/app/${workspaceId}/contacts?q=x`));
      await Promise.all([
        page.waitForNavigation(),
        page.keyboard.press('g').then(() => page.keyboard.press('c')),
      ]);
      expect(page.url()).to.equal(url(`/app/${workspaceId}/contacts`));
    } finally {
      await close();
    }
  });

  it('navigates and switches the theme with JavaScript off, and fits 390 px without sideways scroll', async () => {
    const { user, workspaceId } = await workspaceWithAdmin('No Script Ltd');
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await page.setJavaScriptEnabled(false);
      await page.setViewport({ width: 390, height: 844 });
      await signInBrowser(page, user.email);
      expect(page.url()).to.equal(url(`/app/${workspaceId}/contacts`));
      expect(await horizontalOverflow(page)).to.equal(0);
      await Promise.all([page.waitForNavigation(), page.click('.theme-form button')]);
      expect(await page.$eval('html', (el) => el.className)).to.equal('theme-dark');
      expect(page.url()).to.equal(url(`/app/${workspaceId}/contacts`));
      await page.click('.switcher summary');
      await Promise.all([page.waitForNavigation(), page.click('.switcher a[href="/app/new"]')]);
      expect(await page.$eval('h1', (el) => el.textContent)).to.equal('New workspace');
      await page.type('#name', 'Second Shop');
      await Promise.all([page.waitForNavigation(), page.click('main button[type=submit]')]);
      expect(await page.$eval('.flash', (el) => el.textContent)).to.equal('Workspace “Second Shop” created.');
      expect(await page.$eval('.switcher summary', (el) => el.textContent)).to.contain('Second Shop');
      expect(await horizontalOverflow(page)).to.equal(0);
    } finally {
      await close();
    }
  });
});
