// The report pages in Chromium: from a campaign's page to its report, a period chosen through the
// form (a plain GET: no script needed), the charts drawn, the workspace's reports from the
// navigation; axe finds no serious or critical violation, and nothing overflows a phone's width.
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
import { createCampaign } from './support.ts';

describe('campaigns: the report pages in a browser', function () {
  this.timeout(90_000);
  const chromium = suiteChromium();

  it('opens a campaign’s report, changes its period, reads the workspace’s; passes axe at 390 px', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('Report Co');
    const api = `/api/workspaces/${workspaceId}`;
    const campaign = await createCampaign(client, api, {
      name: 'Spring sale',
      steps: [
        {
          type: 'split',
          paths: [
            { weight: 1, steps: [{ type: 'wait', duration: 'P1D' }] },
            { weight: 1, steps: [{ type: 'exit' }] },
          ],
        },
      ],
    });
    const app = `/app/${workspaceId}`;
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await signInBrowser(page, user.email, `${app}/campaigns/${campaign.id}`);
      await Promise.all([
        page.waitForNavigation(),
        page.click(`a[href$="/campaigns/${campaign.id}/report"]`),
      ]);
      expect(page.url()).to.equal(url(`${app}/campaigns/${campaign.id}/report`));
      expect(await page.$$eval('figure.chart svg', (charts) => charts.length)).to.equal(4);
      expect(await page.$eval('main', (el) => el.textContent)).to.contain('Split paths');
      await expectAccessible(page);

      // The date fields show only with "From – to" (console.js; without it they are always there).
      const datesShown = () => page.$eval('#report-from', (input) => input.checkVisibility());
      expect(await datesShown()).to.equal(false);
      await page.select('#report-period', 'custom');
      expect(await datesShown()).to.equal(true);
      await page.select('#report-period', '7d');
      expect(await datesShown()).to.equal(false);
      await page.select('#report-bucket', 'hour');
      await Promise.all([page.waitForNavigation(), page.click('form.report-period button[type="submit"]')]);
      const chosen = new URL(page.url());
      expect(chosen.searchParams.get('period')).to.equal('7d');
      expect(chosen.searchParams.get('bucket')).to.equal('hour');
      const points = await page.$eval(
        'figure.chart polyline',
        (line) => line.getAttribute('points')!.split(' ').length,
      );
      expect(points).to.equal(7 * 24);

      await Promise.all([page.waitForNavigation(), page.click(`nav a[href="${app}/reports"]`)]);
      expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Reports');
      await expectAccessible(page);
      await page.setViewport({ width: 390, height: 800 });
      await page.goto(url(`${app}/campaigns/${campaign.id}/report`));
      expect(await horizontalOverflow(page)).to.be.at.most(0);
      await expectAccessible(page);
    } finally {
      await close();
    }
  });
});
