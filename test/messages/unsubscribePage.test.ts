// The unsubscribe page in a real browser (headless Chromium through puppeteer-core): opening it
// changes nothing; pressing "everything" opts the contact out globally, with no cookie involved.
import { expect } from 'chai';
import { suiteChromium } from '../support/browser.ts';
import { isolatedPage } from '../support/console.ts';
import { server } from '../support/server.ts';
import { makeContact, messagingWorkspace, outgoing, sendHi, suiteSink, waitForStatus } from './support.ts';

describe('unsubscribe page in headless Chromium', function () {
  this.timeout(60_000);
  const sink = suiteSink();
  const chromium = suiteChromium();

  it('shows the choice without changing anything, and the "everything" button unsubscribes from all', async () => {
    const { client, base, workspaceId } = await messagingWorkspace(sink);
    const contactId = await makeContact(client, base, { email: `browser.${Date.now()}@example.test` });
    const sent = await sendHi(client, base, contactId);
    await waitForStatus(client, base, sent.body.id, 'sent');
    const mail = (await sink.received()).find((r) => r.headers['x-switchboard-message-id'] === sent.body.id)!;
    const link = new URL(/^<([^>]+)>$/.exec(mail.headers['list-unsubscribe'])![1]);

    const { page, close } = await isolatedPage(chromium.browser);
    const opened = await page.goto(server().baseUrl + link.pathname);
    expect(opened?.status()).to.equal(200);
    expect(await page.$$eval('button', (buttons) => buttons.map((b) => b.textContent))).to.deep.equal([
      'Unsubscribe from email',
      'Unsubscribe from everything',
    ]);
    expect(await outgoing(workspaceId, 'unsubscribe.all')).to.deep.equal([]);
    expect(await outgoing(workspaceId, 'unsubscribe.email')).to.deep.equal([]);

    const [answer] = await Promise.all([page.waitForNavigation(), page.click('button[value="all"]')]);
    expect(answer?.status()).to.equal(200);
    expect(answer?.request().redirectChain()).to.have.length(0);
    expect(await page.$eval('h1', (h) => h.textContent)).to.equal('You are unsubscribed');
    expect(await page.cookies()).to.deep.equal([]);
    expect(await outgoing(workspaceId, 'unsubscribe.all')).to.deep.equal([{ contactId }]);
    await close();
  });
});
