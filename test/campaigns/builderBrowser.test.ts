// The campaign builder in Chromium, as a person uses it: a campaign with a branch and a split built
// with the form's buttons, saved, and its flow drawn on the campaign's page; axe-core on the form
// (empty, nested, and showing a refusal).
import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { suiteChromium } from '../support/browser.ts';
import {
  expectAccessible,
  horizontalOverflow,
  isolatedPage,
  signInBrowser,
  url,
} from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';

const field = (name: string) => `[id="${name}"]`;

/** Saves: a plain submit, answered by the campaign's page or the form with its refusals. */
async function save(page: Page) {
  await Promise.all([page.waitForNavigation(), page.click('button[name="action"][value="save"]')]);
}

/** A button that changes the draft: with JavaScript, htmx swaps the builder alone (no navigation). */
async function press(page: Page, action: string) {
  await swapped(page, () => page.click(`button[name="action"][value="${action}"]`));
}

async function swapped(page: Page, act: () => Promise<unknown>) {
  await page.$eval('#campaign-builder', (el) => el.setAttribute('data-before', ''));
  await act();
  await page.waitForFunction(() => !document.querySelector('#campaign-builder[data-before]'));
}

const displayOf = (page: Page, selector: string) =>
  page.$eval(selector, (el) => getComputedStyle(el).display);

describe('campaigns: the builder in a browser', function () {
  this.timeout(120_000);
  const chromium = suiteChromium();

  it('builds a campaign with a branch and a split, saves it, and shows its flow drawn', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('Builder Co');
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await signInBrowser(page, user.email, `/app/${workspaceId}/campaigns`);
      await Promise.all([page.waitForNavigation(), page.click('a[href$="/campaigns/new/form"]')]);
      expect(page.url()).to.equal(url(`/app/${workspaceId}/campaigns/new/form`));
      await expectAccessible(page);
      // A mark on the window survives an htmx swap, not a page load.
      await page.evaluate(() => Object.assign(window, { sameDocument: true }));
      await page.type(field('name'), 'Welcome journey');
      await page.type(field('trigger.eventType'), 'signup');
      await press(page, 'add:steps@0:send');
      // The added step's first input has the focus.
      expect(await page.evaluate(() => document.activeElement?.id)).to.equal('steps[0].channel');
      // Another channel chosen shows its fields at once; choosing the first again, the first's.
      const inputs = () => page.$$eval('[id^="steps[0]."]', (els) => els.map((el) => el.id));
      const first = await inputs();
      const channels = await page.$eval(field('steps[0].channel'), (el) =>
        [...(el as HTMLSelectElement).options].map((option) => option.value),
      );
      await swapped(page, () => page.select(field('steps[0].channel'), channels[1]!));
      expect(await inputs()).to.not.deep.equal(first);
      await swapped(page, () => page.select(field('steps[0].channel'), channels[0]!));
      expect(await inputs()).to.deep.equal(first);
      // Only the chosen trigger's fields show (CSS alone).
      expect(await displayOf(page, '.trigger-segment')).to.equal('none');
      expect(await displayOf(page, '.trigger-event')).to.not.equal('none');
      await page.type(field('steps[0].body'), '<p>Glad you are here.</p>');
      await press(page, 'add:steps@1:branch');
      await page.type(field('steps[1].if.event'), 'purchase');
      await press(page, 'add:steps[1].then@0:exit');
      await press(page, 'add:steps@2:split');
      await press(page, 'add:steps[2].paths[0].steps@0:wait');
      expect(await displayOf(page, '[id="steps[1]"] > .when-segment')).to.equal('none');
      expect(await displayOf(page, '[id="steps[2].paths[0].steps[0]"] > .when-until')).to.equal('none');
      expect(await page.evaluate(() => 'sameDocument' in window)).to.equal(true);
      // Readable on a phone: three levels of steps and no horizontal scrolling at 390 px.
      await page.setViewport({ width: 390, height: 844 });
      expect(await horizontalOverflow(page)).to.be.at.most(0);
      await page.setViewport({ width: 1100, height: 900 });
      await expectAccessible(page);
      // A refusal (the subject left blank) is shown at its field, and the summary links to it.
      await save(page);
      expect(await page.$eval('#problems', (el) => el.textContent)).to.contain('Step 0, Subject');
      await expectAccessible(page);
      expect(await page.$eval(field('steps[0].subject'), (el) => el.getAttribute('aria-invalid'))).to.equal(
        'true',
      );
      await press(page, 'add:steps@3:exit');
      await page.evaluate(() => {
        (document.getElementById('steps[0].subject') as HTMLInputElement).value =
          'Welcome, {{ contact.firstName }}';
      });
      await press(page, 'save');
      expect(await page.$eval('main', (el) => el.textContent)).to.contain('Draft campaign created.');
      const drawn = await page.$$eval('svg.flow g.flow-step', (boxes) =>
        boxes.map((b) => b.getAttribute('data-step')),
      );
      expect(drawn).to.include.members(['0', '1', '1.then.0', '2', '2.paths.0.0', '3']);
      await expectAccessible(page);
      const [campaign] = (await client.get(`/api/workspaces/${workspaceId}/campaigns`)).body.data;
      expect(campaign.steps.map((s: { type: string }) => s.type)).to.deep.equal([
        'send',
        'branch',
        'split',
        'exit',
      ]);
    } finally {
      await close();
    }
  });
});
