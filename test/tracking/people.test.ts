// People and machines: a person's open and click in headless Chromium (the mail's HTML from the
// sink, a real click, landing on the original URL) counts once in the report and emits its
// webhooks; a scanner's agent, a HEAD, a prefetch, a hit too soon after the send, a sweep of every
// link and the honeypot are stored as machine hits and emit nothing. A human click is an event like
// any other: it enrolls a campaign triggered by message.click and moves the lead score.
import { expect } from 'chai';
import { outgoing, suiteSink } from '../messages/support.ts';
import { suiteChromium } from '../support/browser.ts';
import { isolatedPage } from '../support/console.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';
import {
  BARRACUDA,
  CHROME,
  campaignMail,
  classifiedHits,
  hit,
  sentAMinuteAgo,
  suiteLanding,
  trackingOf,
} from './support.ts';

describe('tracking: people and machines', function () {
  this.timeout(90_000);
  const sink = suiteSink();
  const landing = suiteLanding();
  const chromium = suiteChromium();

  it('counts a person who opens the mail in Chromium and clicks once; a scanner and a HEAD only as machines', async () => {
    const { admin, client, base, html, messageId, contactId, campaignId, workspaceId } = await campaignMail(
      sink,
      landing.origin,
    );
    await sentAMinuteAgo(messageId);
    // The mail as a mail client shows it, with the links pointing at this test's server.
    const shown = html.replaceAll(/http:\/\/localhost:\d+\/t\//g, `${server().baseUrl}/t/`);
    const { page, close } = await isolatedPage(chromium.browser);
    await page.setUserAgent(CHROME);
    await page.setContent(shown, { waitUntil: 'load' });
    const [landed] = await Promise.all([page.waitForNavigation(), page.click('#offer')]);
    expect(landed?.status()).to.equal(200);
    expect(page.url()).to.equal(`${landing.origin}/offer?utm=mail&x=1#top`);
    expect(await page.$eval('h1', (h) => h.textContent)).to.equal('Landed');
    await close();

    const offer = trackingOf(html).links.get('offer')!;
    expect((await hit(offer, { userAgent: BARRACUDA })).status).to.equal(302);
    expect((await hit(offer, { method: 'HEAD' })).status).to.equal(302);

    const hits = await classifiedHits(client, base, messageId, 4);
    const summary = hits.map((h) => [h.kind, h.method, h.human, h.reasons]);
    expect(summary).to.deep.include.members([
      ['open', 'GET', true, []],
      ['click', 'GET', true, []],
      ['click', 'GET', false, ['security_gateway']],
      ['click', 'HEAD', false, ['head_request']],
    ]);
    expect(hits).to.have.length(4);

    const url = `${landing.origin}/offer?utm=mail&x=1#top`;
    expect(await outgoing(workspaceId, 'message.opened')).to.deep.equal([
      { messageId, contactId, channel: 'email' },
    ]);
    expect(await outgoing(workspaceId, 'message.clicked')).to.deep.equal([
      { messageId, contactId, channel: 'email', url },
    ]);
    const events = await admin.get(`${base}/events?contactId=${contactId}&type=message.click`);
    expect(events.body.map((e: { metadata: unknown }) => e.metadata)).to.deep.equal([
      { messageId, campaignId, channel: 'email', url },
    ]);
    const detail = await client.get(`${base}/messages/${messageId}`);
    expect(detail.body.timeline.map((e: { type: string }) => e.type)).to.include.members([
      'opened',
      'clicked',
    ]);

    const report = (await client.get(`${base}/campaigns/${campaignId}/report`)).body;
    expect(report.messages).to.deep.include({
      sent: 1,
      uniqueOpens: 1,
      uniqueClicks: 1,
      clickThroughRate: 1,
      machineOpens: 0,
      machineClicks: 2,
    });
    expect(report.steps[0].messages).to.deep.include({ uniqueClicks: 1, machineClicks: 2 });
  });

  it('stores a prefetch, a proxy open, a hit too soon, a sweep of every link and the honeypot as machine hits', async () => {
    const early = await campaignMail(sink, landing.origin);
    const earlyLinks = trackingOf(early.html);
    await hit(earlyLinks.links.get('blog')!);
    await hit(earlyLinks.pixel!, { userAgent: 'Mozilla/5.0' });
    await hit(earlyLinks.pixel!, { headers: { 'sec-purpose': 'prefetch' } });
    const earlyHits = await classifiedHits(early.client, early.base, early.messageId, 3);
    expect(earlyHits.map((h) => h.reasons)).to.deep.equal([
      ['too_soon'],
      ['mail_proxy', 'too_soon'],
      ['prefetch', 'too_soon'],
    ]);

    const swept = await campaignMail(sink, landing.origin);
    await sentAMinuteAgo(swept.messageId);
    const { links, honeypot } = trackingOf(swept.html);
    await Promise.all([hit(links.get('offer')!), hit(links.get('blog')!)]);
    const honeypotAnswer = await hit(honeypot!);
    expect(honeypotAnswer.status).to.equal(200);
    expect(honeypotAnswer.headers.get('location')).to.equal(null);
    const sweptHits = await classifiedHits(swept.client, swept.base, swept.messageId, 3);
    expect(sweptHits.map((h) => [h.kind, h.human, h.reasons])).to.deep.include.members([
      ['click', false, ['many_links_at_once', 'honeypot']],
      ['honeypot', false, ['honeypot']],
    ]);
    expect(sweptHits.filter((h) => h.human)).to.deep.equal([]);

    for (const { workspaceId } of [early, swept]) {
      expect(await outgoing(workspaceId, 'message.opened')).to.deep.equal([]);
      expect(await outgoing(workspaceId, 'message.clicked')).to.deep.equal([]);
    }
    const report = (await swept.client.get(`${swept.base}/campaigns/${swept.campaignId}/report`)).body;
    expect(report.messages).to.deep.include({ uniqueClicks: 0, clickThroughRate: 0, machineClicks: 3 });
  });

  it('lets a human click enroll a campaign triggered by message.click and move the lead score', async () => {
    const mail = await campaignMail(sink, landing.origin);
    const { admin, client, base, contactId, messageId } = mail;
    const rule = await admin.post(`${base}/scoring-rules`, {
      name: 'clicked',
      eventType: 'message.click',
      points: 15,
    });
    expect(rule.status, rule.text).to.equal(201);
    const follow = await client.post(`${base}/campaigns`, {
      name: 'Clicked',
      trigger: {
        type: 'event',
        eventType: 'message.click',
        where: [{ path: 'url', op: 'contains', value: '/offer' }],
      },
      steps: [{ type: 'wait', duration: 'P1D' }],
    });
    expect(follow.status, follow.text).to.equal(201);
    expect((await client.post(`${base}/campaigns/${follow.body.id}/activate`)).status).to.equal(200);
    await sentAMinuteAgo(messageId);

    await hit(trackingOf(mail.html).links.get('offer')!, { userAgent: BARRACUDA });
    await classifiedHits(client, base, messageId, 1);
    const before = await client.get(`${base}/campaigns/${follow.body.id}/enrollments`);
    expect(before.body.data).to.deep.equal([]);
    expect((await client.get(`${base}/contacts/${contactId}`)).body.leadScore).to.equal(0);

    await hit(trackingOf(mail.html).links.get('offer')!);
    const enrolled = await eventually(async () => {
      const got = await client.get(`${base}/campaigns/${follow.body.id}/enrollments`);
      return got.body.data.length ? got.body.data : null;
    }, 20_000);
    expect(enrolled.map((e: { contactId: string }) => e.contactId)).to.deep.equal([contactId]);
    expect((await client.get(`${base}/contacts/${contactId}`)).body.leadScore).to.equal(15);
  });
});
