// What counts, and how often. Well-known machines that look like browsers (Office's link check,
// Outlook's previews, PowerShell) are machines on a link; Apple Mail Privacy Protection's pixel
// load is a proxy's, a class of its own in the record and the report. A message's open, and its
// click on one URL, take effect once however often they come; every hit of a token is recorded up
// to its bound, and every click is redirected beyond it.
import { expect } from 'chai';
import { MAX_HITS_PER_TOKEN } from '../../src/tracking/queries.ts';
import { outgoing, suiteSink } from '../messages/support.ts';
import { eventually } from '../support/factories.ts';
import {
  CHROME,
  campaignMail,
  classifiedHits,
  hit,
  sentAMinuteAgo,
  suiteLanding,
  trackingOf,
} from './support.ts';

const OFFICE_LINK_CHECK = 'Mozilla/4.0 (compatible; ms-office; MSOffice 16)';
const OFFICE_LINK_CHECKS = [
  OFFICE_LINK_CHECK,
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) ms-office; MSOffice 16',
  'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)',
  'Microsoft Office/15.0 (Windows NT 6.1; Microsoft Outlook 15.0.5023; Pro)',
  'Microsoft Office Existence Discovery',
];
const POWERSHELLS = [
  'Mozilla/5.0 (Windows NT; Windows NT 10.0; en-US) WindowsPowerShell/5.1.19041.1682',
  'Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.19045; en-US) PowerShell/7.4.1',
];
const APPLE_MPP = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)';
const SAFARI = `${APPLE_MPP} Version/17.5 Safari/605.1.15`;
const OUTLOOK = 'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)';

type Summary = { kind: string; class: string; reasons: string[]; userAgent: string };

describe('tracking: what counts, and how often', function () {
  this.timeout(90_000);
  const sink = suiteSink();
  const landing = suiteLanding();

  it('counts Office and Outlook link checks and PowerShell as machines, Apple MPP opens as a proxy', async () => {
    const { client, base, html, messageId, campaignId } = await campaignMail(sink, landing.origin);
    await sentAMinuteAgo(messageId);
    const { links, pixel } = trackingOf(html);
    // One link only, so no hit is a sweep of several.
    for (const userAgent of [...OFFICE_LINK_CHECKS, ...POWERSHELLS]) {
      expect((await hit(links.get('offer')!, { userAgent })).status).to.equal(302);
    }
    for (const userAgent of [APPLE_MPP, SAFARI, OUTLOOK, POWERSHELLS[0]]) await hit(pixel!, { userAgent });
    const total = OFFICE_LINK_CHECKS.length + POWERSHELLS.length + 4;
    const hits = (await classifiedHits(client, base, messageId, total)) as unknown as Summary[];
    const byAgent = new Map(hits.map((h) => [`${h.kind} ${h.userAgent}`, [h.class, h.reasons]]));
    for (const agent of OFFICE_LINK_CHECKS) {
      expect(byAgent.get(`click ${agent}`), agent).to.deep.equal(['machine', ['link_checker']]);
    }
    for (const agent of POWERSHELLS) {
      expect(byAgent.get(`click ${agent}`), agent).to.deep.equal(['machine', ['bot_user_agent']]);
    }
    expect(byAgent.get(`open ${APPLE_MPP}`)).to.deep.equal(['proxy', ['mail_proxy']]);
    expect(byAgent.get(`open ${SAFARI}`)).to.deep.equal(['human', []]);
    // Outlook showing the mail a person opened: the person's open.
    expect(byAgent.get(`open ${OUTLOOK}`)).to.deep.equal(['human', []]);
    expect(byAgent.get(`open ${POWERSHELLS[0]}`)).to.deep.equal(['machine', ['bot_user_agent']]);

    const report = (await client.get(`${base}/campaigns/${campaignId}/report`)).body;
    expect(report.messages).to.deep.include({
      uniqueOpens: 1,
      uniqueClicks: 0,
      machineOpens: 1,
      proxyOpens: 1,
      machineClicks: OFFICE_LINK_CHECKS.length + POWERSHELLS.length,
    });
    expect(report.steps[0].messages).to.deep.include({ proxyOpens: 1, machineOpens: 1 });
  });

  it('counts a message’s open once and its click on one URL once: one event, webhook and score each', async () => {
    const { admin, client, base, html, messageId, contactId, workspaceId } = await campaignMail(
      sink,
      landing.origin,
    );
    const rule = await admin.post(`${base}/scoring-rules`, {
      name: 'clicked',
      eventType: 'message.click',
      points: 15,
    });
    expect(rule.status, rule.text).to.equal(201);
    await sentAMinuteAgo(messageId);
    const { links, pixel } = trackingOf(html);
    // The blog first, settled before the offer's clicks, so none of them is a sweep of both links.
    await hit(links.get('blog')!);
    await classifiedHits(client, base, messageId, 1);
    for (let n = 0; n < 3; n++) await hit(links.get('offer')!);
    await hit(pixel!);
    await hit(pixel!);
    const hits = await classifiedHits(client, base, messageId, 6);
    expect(hits.map((h) => [h.kind, h.human])).to.deep.equal([
      ['click', true],
      ['click', true],
      ['click', true],
      ['click', true],
      ['open', true],
      ['open', true],
    ]);

    const offer = `${landing.origin}/offer?utm=mail&x=1#top`;
    const blog = `${landing.origin}/blog`;
    const clicked = await outgoing(workspaceId, 'message.clicked');
    expect(clicked.map((data) => data.url)).to.deep.equal([blog, offer]);
    expect(await outgoing(workspaceId, 'message.opened')).to.have.length(1);
    const events = async (type: string) =>
      (await admin.get(`${base}/events?contactId=${contactId}&type=${type}`)).body as {
        metadata: { url?: string };
      }[];
    expect((await events('message.click')).map((e) => e.metadata.url).sort()).to.deep.equal([blog, offer]);
    expect(await events('message.open')).to.have.length(1);
    const score = await eventually(async () => {
      const got = (await client.get(`${base}/contacts/${contactId}`)).body.leadScore;
      return got === 30 ? got : null;
    });
    expect(score).to.equal(30);
    const detail = await client.get(`${base}/messages/${messageId}`);
    const timeline = detail.body.timeline.map((e: { type: string }) => e.type);
    expect(timeline.filter((type: string) => type === 'clicked')).to.have.length(2);

    // A later click on the offer, once the first has taken effect: recorded, no second effect.
    await hit(links.get('offer')!);
    await classifiedHits(client, base, messageId, 7);
    expect(await outgoing(workspaceId, 'message.clicked')).to.have.length(2);
  });

  it('records at most the bound of one link’s hits, still redirecting every one; other tokens keep theirs', async () => {
    const { client, base, html, messageId } = await campaignMail(sink, landing.origin);
    const { links, pixel } = trackingOf(html);
    const offer = `${landing.origin}/offer?utm=mail&x=1#top`;
    for (let n = 0; n < MAX_HITS_PER_TOKEN + 5; n++) {
      const answer = await hit(links.get('offer')!, { userAgent: CHROME });
      expect(answer.status).to.equal(302);
      expect(answer.headers.get('location')).to.equal(offer);
    }
    // Concurrent hits go into one statement together: the bound holds within it too.
    await Promise.all(Array.from({ length: MAX_HITS_PER_TOKEN + 5 }, () => hit(pixel!)));
    expect((await hit(links.get('blog')!)).status).to.equal(302);
    const hits = (await client.get(`${base}/messages/${messageId}`)).body.hits as {
      kind: string;
      url: string;
    }[];
    expect(hits.filter((h) => h.url === offer)).to.have.length(MAX_HITS_PER_TOKEN);
    expect(hits.filter((h) => h.kind === 'open')).to.have.length(MAX_HITS_PER_TOKEN);
    expect(hits.filter((h) => h.url === `${landing.origin}/blog`)).to.have.length(1);
  });
});
