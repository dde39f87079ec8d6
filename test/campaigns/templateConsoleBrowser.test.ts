// The template editor in Chromium: typing in the editor updates the preview (htmx posts the form
// as it stands), a Liquid error shows at its line as one types, and the page passes axe.
import { expect } from 'chai';
import { createContact } from '../events/support.ts';
import { suiteChromium } from '../support/browser.ts';
import { expectAccessible, isolatedPage, signInBrowser } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { createCampaign } from './support.ts';

describe('campaigns: the template editor in a browser', function () {
  this.timeout(90_000);
  const chromium = suiteChromium();

  it('updates the preview as one types, shows a Liquid error at its line, and passes axe', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('Template Co');
    const api = `/api/workspaces/${workspaceId}`;
    const campaign = await createCampaign(client, api, {
      steps: [
        { type: 'send', channel: 'email', subject: 'Hello', body: '<p>Hi {{ contact.firstName }}</p>' },
      ],
    });
    const contact = await createContact(client, api, { email: 'ada@example.com', firstName: 'Ada' });
    const path = `/app/${workspaceId}/campaigns/${campaign.id}/steps/0/template?contact=${contact.id}`;
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await signInBrowser(page, user.email, path);
      const preview = () => page.$eval('#template-preview', (el) => el.outerHTML);
      expect(await preview()).to.contain('Hi Ada');
      await expectAccessible(page);

      await page.click('#field-subject', { count: 3 });
      await page.type('#field-subject', 'Welcome {{ contact.firstName }}');
      await page.waitForFunction(
        () => document.querySelector('#template-preview dd')?.textContent === 'Welcome Ada',
        { timeout: 10_000 },
      );

      // Both frames (desktop and phone widths) show the HTML, and run none of it.
      const frameTexts = async () =>
        Promise.all(
          page
            .frames()
            .filter((frame) => frame !== page.mainFrame())
            .map((frame) => frame.evaluate(() => document.body?.textContent ?? '')),
        );
      await page.waitForFunction(() => document.querySelectorAll('#template-preview iframe').length === 2);
      expect(await frameTexts()).to.deep.equal(['Hi Ada', 'Hi Ada']);
      await page.focus('#field-body');
      await page.keyboard.press('End');
      await page.type('#field-body', '\n<p>{{ contact.email | nosuchfilter }}</p>');
      await page.waitForFunction(
        () => /Body, line 2, column 4/.test(document.querySelector('#template-preview')?.textContent ?? ''),
        { timeout: 10_000 },
      );
      await expectAccessible(page);

      // Nothing was saved by typing.
      const saved = await client.get(`${api}/campaigns/${campaign.id}`);
      expect(saved.body.steps[0].subject).to.equal('Hello');
    } finally {
      await close();
    }
  });
});
