// The hosted form in a real browser (headless Chromium through puppeteer-core): a person fills it
// in and submits it; and with double opt-in, the link in the confirmation email, opened in the
// browser, subscribes the contact only once its button is pressed.
import { expect } from 'chai';
import { messagingWorkspace, suiteSink } from '../messages/support.ts';
import { suiteChromium } from '../support/browser.ts';
import { isolatedPage } from '../support/console.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { formsWorkspace, makeForm } from './support.ts';

describe('hosted form in headless Chromium', function () {
  this.timeout(60_000);
  const sink = suiteSink();
  const chromium = suiteChromium();

  it('is filled in with labelled inputs and submitted, loading nothing from elsewhere', async () => {
    const { client, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    const { page, close } = await isolatedPage(chromium.browser);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const opened = await page.goto(`${server().baseUrl}/f/${form.id}`);
    expect(opened?.status()).to.equal(200);
    expect(opened?.headers()['content-security-policy']).to.match(/default-src 'none'/);
    // Every visible input has a label naming it (what a screen reader announces).
    const labels = await page.$$eval('input:not([type=hidden])', (inputs) =>
      inputs.map((input) => (input as HTMLInputElement).labels?.[0]?.textContent?.trim() ?? null),
    );
    expect(labels).to.deep.equal([
      'Email *',
      'First name',
      'Company',
      'I agree to receive the newsletter *',
      'Leave this field empty',
    ]);
    await page.type('#f-email', 'Hopper@Example.com');
    await page.type('#f-firstName', 'Grace');
    await page.click('#f-consent');
    const [answer] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(answer?.status()).to.equal(200);
    expect(await page.$eval('[role=status]', (node) => node.textContent)).to.equal(
      'Thanks! You are on the list.',
    );
    expect(requested.every((url) => url.startsWith(server().baseUrl))).to.equal(true);
    const submissions = await client.get(`${base}/forms/${form.id}/submissions`);
    expect(submissions.body.data[0].fields).to.include({
      email: 'hopper@example.com',
      firstName: 'Grace',
      consent: true,
    });
    await close();
  });

  it('shows the errors beside the inputs when the browser lets an invalid value through', async () => {
    const { client, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    const { page, close } = await isolatedPage(chromium.browser);
    await page.goto(`${server().baseUrl}/f/${form.id}`);
    // Turn off the browser's own checks, as an old browser would not have them.
    await page.$eval('form', (node) => node.setAttribute('novalidate', ''));
    await page.type('#f-email', 'not an email');
    const [answer] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(answer?.status()).to.equal(400);
    expect(await page.$eval('[role=alert]', (node) => node.textContent)).to.include(
      'Email must be an email address',
    );
    expect(await page.$eval('#f-email', (node) => node.getAttribute('aria-describedby'))).to.equal(
      'f-email-error',
    );
    expect(await page.$eval('#f-email', (node) => (node as HTMLInputElement).value)).to.equal('not an email');
    expect((await client.get(`${base}/forms/${form.id}/submissions`)).body.total).to.equal(0);
    await close();
  });

  it('with double opt-in, subscribes the contact only when the emailed link’s button is pressed', async () => {
    const { admin, workspaceId } = await messagingWorkspace(sink);
    const { client, base } = await formsWorkspace(admin, workspaceId);
    const form = await makeForm(client, base, { doubleOptIn: true });
    const email = `confirm.${Date.now()}@example.com`;
    const { page, close } = await isolatedPage(chromium.browser);
    await page.goto(`${server().baseUrl}/f/${form.id}`);
    await page.type('#f-email', email);
    await page.click('#f-consent');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.content()).to.include('follow its link to confirm');

    const submission = (await client.get(`${base}/forms/${form.id}/submissions`)).body.data[0];
    expect(submission.confirmation).to.equal('pending');
    const emailState = async () => {
      const got = await client.get(`${base}/contacts/${submission.contactId}/subscriptions`);
      return got.body.subscriptions.find((s: { channel: string }) => s.channel === 'email').status;
    };
    expect(await emailState()).to.equal('unsubscribed');

    const mail = await eventually(async () => (await sink.received()).find((r) => r.to.includes(email)));
    const link = new URL(/(\S+\/f\/confirm\/\S+)/.exec(String(mail.mail.text))![1]);
    await page.goto(server().baseUrl + link.pathname);
    expect(await emailState()).to.equal('unsubscribed');
    const [answer] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(answer?.status()).to.equal(200);
    expect(await page.$eval('h1', (node) => node.textContent)).to.equal('Subscription confirmed');
    expect(await emailState()).to.equal('subscribed');
    const confirmed = (await client.get(`${base}/forms/${form.id}/submissions`)).body.data[0];
    expect(confirmed.confirmation).to.equal('confirmed');
    expect((await fetch(`${server().baseUrl}${link.pathname}x`)).status).to.equal(404);
    await close();
  });
});
