// A broadcast's progress page in Chromium: activated from the console, it lands on the page, whose
// figures follow the server-sent events until the broadcast finishes (console.js), and it passes
// axe while sending and once finished.
import { expect } from 'chai';
import { createContact } from '../events/support.ts';
import { suiteSink } from '../messages/support.ts';
import { createSegment, whenReady } from '../segments/helpers.ts';
import { suiteChromium } from '../support/browser.ts';
import { expectAccessible, isolatedPage, signInBrowser } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { createCampaign, emailChannel } from './support.ts';

describe('campaigns: a broadcast progress in a browser', function () {
  this.timeout(90_000);
  const chromium = suiteChromium();
  const sink = suiteSink();

  it('lands on the progress page after activating, follows the stream to the finish, passes axe', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('Progress Co');
    const api = `/api/workspaces/${workspaceId}`;
    await emailChannel(client, api, sink.port);
    for (const name of ['ada', 'bob'])
      await createContact(client, api, { email: `${name}@browser-progress.test`, attributes: { vip: true } });
    const segment = await createSegment(client, api, { attribute: 'vip', op: 'eq', value: true });
    await whenReady(client, api, segment.id);
    // Sent a few seconds after activation: the page opens before it finishes and must follow it.
    const campaign = await createCampaign(client, api, {
      name: 'Browser news',
      trigger: {
        type: 'broadcast',
        segmentId: segment.id,
        sendAt: new Date(Date.now() + 8_000).toISOString(),
      },
      steps: [{ type: 'send', channel: 'email', subject: 'News', body: '<p>News</p>' }],
    });
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await signInBrowser(page, user.email, `/app/${workspaceId}/campaigns/${campaign.id}/activate`);
      await Promise.all([page.waitForNavigation(), page.click('main form button[type="submit"]')]);
      expect(page.url()).to.match(new RegExp(`/campaigns/${campaign.id}/progress$`));
      const figures = () => page.$eval('.progress-figures', (el) => el.textContent ?? '');
      expect(await figures()).to.contain('scheduled');
      await expectAccessible(page);
      // No reload: console.js replaces the figures as the events come, up to the finish.
      await page.evaluate(() => document.body.setAttribute('data-same-page', 'yes'));
      await page.waitForFunction(
        () => document.querySelector('.progress-figures')?.textContent?.includes('finished'),
        { timeout: 40_000 },
      );
      expect(await figures()).to.contain('Left the queue: 2 of 2 (100 %)');
      expect(await page.$('[data-progress-stream]')).to.equal(null);
      expect(await page.$eval('body', (el) => el.getAttribute('data-same-page'))).to.equal('yes');
      await expectAccessible(page);
    } finally {
      await close();
    }
  });
});
