// The template editor in Chromium, as a person uses it: opened from the campaign's page, a contact
// found by email, the preview updating as one types (htmx posts the form as it stands), a Liquid
// error at its line, a test sent; the page passes axe.
import { expect } from 'chai';
import { createContact } from '../events/support.ts';
import { suiteSink } from '../messages/support.ts';
import { suiteChromium } from '../support/browser.ts';
import { expectAccessible, isolatedPage, signInBrowser } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { createCampaign, emailChannel } from './support.ts';

describe('campaigns: the template editor in a browser', function () {
  this.timeout(90_000);
  const chromium = suiteChromium();
  const sink = suiteSink();

  it('opens from the campaign, picks a contact, previews as one types, shows a Liquid error at its line, sends a test; passes axe', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('Template Co');
    const api = `/api/workspaces/${workspaceId}`;
    const campaign = await createCampaign(client, api, {
      steps: [
        { type: 'send', channel: 'email', subject: 'Hello', body: '<p>Hi {{ contact.firstName }}</p>' },
      ],
    });
    await createContact(client, api, { email: 'ada@example.com', firstName: 'Ada' });
    await emailChannel(client, api, sink.port);
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      // From the campaign's page: its send step's template, then a contact found by email.
      await signInBrowser(page, user.email, `/app/${workspaceId}/campaigns/${campaign.id}`);
      await Promise.all([page.waitForNavigation(), page.click('a[href$="/steps/0/template"]')]);
      await page.type('#contact-q', 'ada@example');
      await Promise.all([page.waitForNavigation(), page.click('.template-picker button[type="submit"]')]);
      await Promise.all([page.waitForNavigation(), page.click('.template-contacts a')]);
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

      // A test of the saved template, to an address typed in.
      await page.type('#test-to', 'tester@example.org');
      await Promise.all([page.waitForNavigation(), page.click('form[action$="/template/test"] button')]);
      expect(await page.$eval('main', (el) => el.textContent)).to.contain('Test sent to tester@example.org');
      const mail = (await sink.received()).find((m) => m.to.includes('tester@example.org'));
      expect(mail?.mail.subject).to.equal('[Test] Hello');

      // Nothing was saved by typing.
      const saved = await client.get(`${api}/campaigns/${campaign.id}`);
      expect(saved.body.steps[0].subject).to.equal('Hello');
    } finally {
      await close();
    }
  });
});
