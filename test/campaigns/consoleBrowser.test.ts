// The campaigns pages in Chromium: the list, a campaign's page with its flow drawn, and the
// confirmation of an activation pass axe; activating through the page works as a person would do it.
import { expect } from 'chai';
import { suiteChromium } from '../support/browser.ts';
import { expectAccessible, isolatedPage, signInBrowser, url } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { createCampaign } from './support.ts';

describe('campaigns: the pages in a browser', function () {
  this.timeout(90_000);
  const chromium = suiteChromium();

  it('shows the list and the flow, passes axe, and activates after the confirmation', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('Campaign Co');
    const api = `/api/workspaces/${workspaceId}`;
    const campaign = await createCampaign(client, api, {
      name: 'Onboarding',
      steps: [
        { type: 'wait', duration: 'P1D' },
        {
          type: 'split',
          paths: [
            { weight: 1, steps: [{ type: 'exit' }] },
            { weight: 1, steps: [{ type: 'wait', duration: 'PT2H' }] },
          ],
        },
      ],
    });
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await signInBrowser(page, user.email, `/app/${workspaceId}/campaigns`);
      expect(page.url()).to.equal(url(`/app/${workspaceId}/campaigns`));
      await expectAccessible(page);
      await Promise.all([page.waitForNavigation(), page.click(`a[href$="/campaigns/${campaign.id}"]`)]);
      expect(await page.$$eval('svg.flow g.flow-step', (boxes) => boxes.length)).to.equal(5);
      await expectAccessible(page);
      await Promise.all([page.waitForNavigation(), page.click('a[href$="/activate"]')]);
      await expectAccessible(page);
      await Promise.all([page.waitForNavigation(), page.click('main form button[type="submit"]')]);
      expect(await page.$eval('main', (el) => el.textContent)).to.contain('Campaign activated.');
      expect((await client.get(`${api}/campaigns/${campaign.id}`)).body.status).to.equal('active');
    } finally {
      await close();
    }
  });
});
