// Inviting a member in Chromium, with JavaScript on and off; axe-core on the settings and account
// pages (no serious or critical violation).
import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { suiteChromium } from '../support/browser.ts';
import { expectAccessible, isolatedPage, signInBrowser, url } from '../support/console.ts';
import { uniqueEmail, workspaceWithAdmin } from '../support/factories.ts';

/** Fills the invitation form of the members page and submits it, landing back on the page. */
async function inviteThroughForm(page: Page, email: string, role: 'ADMIN' | 'MEMBER') {
  await page.type('#invite-email', email);
  await page.select('#invite-role', role);
  await Promise.all([page.waitForNavigation(), page.click('form[action$="/invite"] button[type=submit]')]);
}

describe('console settings in a browser', function () {
  this.timeout(60_000);
  const chromium = suiteChromium();

  for (const javaScript of [true, false]) {
    it(`invites a member from the members page with JavaScript ${javaScript ? 'on' : 'off'}`, async () => {
      const { client, user, workspaceId } = await workspaceWithAdmin('Invite Co');
      const { page, close } = await isolatedPage(chromium.browser);
      try {
        await page.setJavaScriptEnabled(javaScript);
        const members = `/app/${workspaceId}/settings/members`;
        await signInBrowser(page, user.email, members);
        expect(page.url()).to.equal(url(members));
        const email = uniqueEmail('browser');
        await inviteThroughForm(page, email, 'ADMIN');
        expect(page.url()).to.equal(url(members));
        const listed = await page.$$eval('section[aria-labelledby=pending-heading] td', (cells) =>
          cells.map((cell) => cell.textContent ?? ''),
        );
        expect(listed.slice(0, 2)).to.deep.equal([email, 'ADMIN']);
        const pending = await client.get(`/api/workspaces/${workspaceId}/invitations`);
        expect(pending.body.map((i: { email: string; role: string }) => [i.email, i.role])).to.deep.equal([
          [email, 'ADMIN'],
        ]);
        if (javaScript) await expectAccessible(page);
      } finally {
        await close();
      }
    });
  }

  it('passes axe on the workspace settings and account pages', async () => {
    const { user, workspaceId } = await workspaceWithAdmin('Axe Co');
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await signInBrowser(page, user.email, `/app/${workspaceId}/settings/workspace`);
      await expectAccessible(page);
      await page.goto(url('/app/account'));
      expect(await page.title()).to.equal('Your account · Switchboard');
      await expectAccessible(page);
    } finally {
      await close();
    }
  });
});
