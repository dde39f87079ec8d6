// The messages section of the console over HTTP: the log with its filters (channel, status,
// campaign, step, contact) and keyset pages, a message's page (what was rendered in a sandboxed
// frame, the text part, the timeline with each hit's class, the provider's response, why it was
// suppressed), the contact page's links, roles (a MEMBER reads, as the API lets it), other
// workspaces' ids as 404, and hostile subjects, HTML and link URLs inert — in Chromium too: the
// frame runs neither a <script> nor an onerror handler, and the page passes axe.
import { expect } from 'chai';
import { FakeTwilio } from '../channels/sms/fakeTwilio.ts';
import { suiteChromium } from '../support/browser.ts';
import {
  consolePage,
  expectAccessible,
  expectInert,
  isolatedPage,
  signInBrowser,
  url,
} from '../support/console.ts';
import { eventually, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import {
  BARRACUDA,
  campaignMail,
  classifiedHits,
  hit,
  sentAMinuteAgo,
  suiteLanding,
  trackingOf,
} from '../tracking/support.ts';
import { makeContact, messagingWorkspace, suiteSink, waitForStatus } from './support.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
const HOSTILE_HTML =
  '<p id="hello">Hello</p><script>document.title = "ran"</script>' +
  '<img src="x" onerror="document.body.dataset.ran = \'yes\'">' +
  '<a id="bad" href="javascript:alert(3)">bad link</a>';

/** The page without the one frame it is meant to hold (checked apart), for expectInert. */
function withoutFrame(page: string): string {
  return page.replace(/<iframe class="message-frame"[^>]*><\/iframe>/, '');
}

describe('messages: console pages', function () {
  this.timeout(90_000);
  const sink = suiteSink();
  const landing = suiteLanding();
  const chromium = suiteChromium();
  let ws: Awaited<ReturnType<typeof campaignMail>>;
  let app: string;
  let hostileId: string;
  let suppressedId: string;
  let hostileContact: string;

  before(async () => {
    ws = await campaignMail(sink, landing.origin);
    app = `/app/${ws.workspaceId}`;
    // A person opens it, a scanner clicks: one human hit and one machine hit.
    await sentAMinuteAgo(ws.messageId);
    const tracking = trackingOf(ws.html);
    expect((await hit(tracking.pixel!)).status).to.equal(200);
    expect((await hit(tracking.links.get('blog')!, { userAgent: BARRACUDA })).status).to.equal(302);
    await classifiedHits(ws.client, ws.base, ws.messageId, 2);
    await eventually(async () => {
      const got = await ws.client.get(`${ws.base}/messages/${ws.messageId}`);
      return got.body.timeline.some((entry: { type: string }) => entry.type === 'opened');
    });

    hostileContact = await makeContact(ws.client, ws.base, { email: 'eve@example.test' });
    const sent = await ws.client.post(`${ws.base}/messages`, {
      contactId: hostileContact,
      channel: 'email',
      subject: HOSTILE,
      html: HOSTILE_HTML,
      text: `Plain ${HOSTILE}`,
    });
    expect(sent.status, sent.text).to.equal(202);
    hostileId = sent.body.id;
    await waitForStatus(ws.client, ws.base, hostileId, 'sent');

    const gone = await makeContact(ws.client, ws.base, { email: 'gone@example.test' });
    const optOut = await ws.client.put(`${ws.base}/contacts/${gone}/subscriptions`, {
      subscriptions: [{ channel: 'email', status: 'unsubscribed' }],
    });
    expect(optOut.status, optOut.text).to.equal(200);
    const refused = await ws.client.post(`${ws.base}/messages`, {
      contactId: gone,
      channel: 'email',
      subject: 'Not for you',
      html: '<p>x</p>',
    });
    expect(refused.status, refused.text).to.equal(202);
    suppressedId = refused.body.id;
    await waitForStatus(ws.client, ws.base, suppressedId, 'suppressed');
  });

  it('lists every message newest first, with the section in the navigation and the hostile subject escaped', async () => {
    const page = await consolePage(ws.admin, `${app}/messages`);
    expect(page.text).to.match(new RegExp(`<a href="${app}/messages"[^>]*aria-current="page">Messages</a>`));
    const order = [suppressedId, hostileId, ws.messageId].map((id) =>
      page.text.indexOf(`${app}/messages/${id}"`),
    );
    expect(
      order.every((at) => at > 0),
      'every message linked',
    ).to.equal(true);
    expect(order).to.deep.equal([...order].sort((a, b) => a - b));
    expect(page.text).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x');
    expect(page.text).to.not.contain('<img src=x');
    expectInert(page.text);
    // The channel filter offers the registry's channels.
    expect(page.text).to.contain('<option value="email">Email</option>');
    expect(page.text).to.contain('<option value="sms">SMS</option>');
  });

  it('filters by status, channel, campaign and step, and contact', async () => {
    const ids = (text: string) =>
      [...text.matchAll(new RegExp(`href="${app}/messages/(msg_[^"]+)"`, 'g'))].map((m) => m[1]);
    const suppressed = await consolePage(ws.admin, `${app}/messages?status=suppressed`);
    expect(ids(suppressed.text)).to.deep.equal([suppressedId]);
    expect(suppressed.text).to.contain('<option value="suppressed" selected>');
    const step = await consolePage(ws.admin, `${app}/messages?campaign=${ws.campaignId}&step=0`);
    expect(ids(step.text)).to.deep.equal([ws.messageId]);
    const otherStep = await consolePage(ws.admin, `${app}/messages?campaign=${ws.campaignId}&step=1`);
    expect(ids(otherStep.text)).to.deep.equal([]);
    expect(otherStep.text).to.contain('No message matches');
    const contact = await consolePage(ws.admin, `${app}/messages?contact=${hostileContact}`);
    expect(ids(contact.text)).to.deep.equal([hostileId]);
    const email = await consolePage(ws.admin, `${app}/messages?channel=email`);
    expect(ids(email.text)).to.have.length(3);
    const sms = await consolePage(ws.admin, `${app}/messages?channel=sms`);
    expect(ids(sms.text)).to.deep.equal([]);
    // A value no select offers is ignored, not an error.
    const odd = await consolePage(ws.admin, `${app}/messages?status=nope&channel=%3Cscript%3E`);
    expect(ids(odd.text)).to.have.length(3);
  });

  it('pages by keyset: two at a time, a next link, then the last one; a broken cursor starts again', async () => {
    const first = await consolePage(ws.admin, `${app}/messages?limit=2`);
    const firstIds = [...first.text.matchAll(/href="[^"]*\/messages\/(msg_[^"]+)"/g)].map((m) => m[1]);
    expect(firstIds).to.deep.equal([suppressedId, hostileId]);
    const next = /<a href="([^"]+)" rel="next">/.exec(first.text)?.[1].replaceAll('&amp;', '&');
    expect(next).to.match(/limit=2&after=/);
    const second = await consolePage(ws.admin, next!);
    const secondIds = [...second.text.matchAll(/href="[^"]*\/messages\/(msg_[^"]+)"/g)].map((m) => m[1]);
    expect(secondIds).to.deep.equal([ws.messageId]);
    expect(second.text).to.not.contain('rel="next"');
    expect(second.text).to.contain('rel="first"');
    const broken = await consolePage(ws.admin, `${app}/messages?limit=2&after=%22%3E%3Cscript%3E`);
    expect(broken.text).to.contain(`${app}/messages/${suppressedId}"`);
  });

  it("shows a message's delivery, rendered parts, timeline with hit classes and provider response", async () => {
    const page = await consolePage(ws.admin, `${app}/messages/${ws.messageId}`);
    expect(page.text).to.contain('<h1>News</h1>');
    expect(page.text).to.match(/<iframe class="message-frame" sandbox=""/);
    expect(page.text).to.match(/<dt>Provider response<\/dt><dd><pre>250 /);
    expect(page.text).to.contain(`href="${app}/contacts/${ws.contactId}"`);
    expect(page.text).to.contain(`href="${app}/messages?campaign=${ws.campaignId}&amp;step=0"`);
    // The campaign it came from, and that campaign's other messages.
    expect(page.text).to.contain(`href="${app}/campaigns/${ws.campaignId}"`);
    expect(page.text).to.contain(`href="${app}/messages?campaign=${ws.campaignId}"`);
    for (const type of ['queued', 'sent', 'opened'])
      expect(page.text).to.match(new RegExp(`<td>${type}</td>`));
    expect(page.text).to.contain('<span class="badge badge-success">human</span>');
    expect(page.text).to.contain('<span class="badge badge-neutral">machine</span>');
    expect(page.text).to.contain('security_gateway');
  });

  it('shows hostile subject, HTML, text and links inert: the HTML only inside the sandboxed srcdoc', async () => {
    const page = await consolePage(ws.admin, `${app}/messages/${hostileId}`);
    expectInert(withoutFrame(page.text), 'the message page outside its frame');
    const frame = /<iframe class="message-frame"([^>]*)><\/iframe>/.exec(page.text)?.[1] ?? '';
    expect(frame).to.contain(' sandbox="" ');
    expect(frame).to.not.match(/allow-/);
    expect(frame).to.not.contain('<');
    // Its own policy: no image but data: ones, so viewing loads no open pixel.
    expect(frame).to.contain('content=&quot;default-src &#39;none&#39;; img-src data:;');
    expect(frame).to.contain('&lt;script&gt;document.title = &quot;ran&quot;&lt;/script&gt;');
    expect(page.text).to.contain('<pre class="message-text">Plain &lt;script&gt;alert(1)');
    expect(page.text).to.contain(
      '<h1>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</h1>',
    );
  });

  it('says why a suppressed message was not sent', async () => {
    const page = await consolePage(ws.admin, `${app}/messages/${suppressedId}`);
    expect(page.text).to.match(/<strong>Suppressed, not sent:<\/strong> unsubscribed from email/);
    expect(page.text).to.contain('Nothing was rendered');
  });

  it("links each message of the contact page's panel to its page, and to the contact's log", async () => {
    const page = await consolePage(ws.admin, `${app}/contacts/${hostileContact}`);
    expect(page.text).to.contain(`href="${app}/messages/${hostileId}"`);
    expect(page.text).to.contain(`href="${app}/messages?contact=${hostileContact}"`);
    expectInert(page.text);
  });

  it("shows another channel's fields as it rendered them: an SMS's text, encoding and segments", async () => {
    const twilio = new FakeTwilio();
    await twilio.start();
    try {
      const sms = await messagingWorkspace();
      const put = await sms.admin.put(`${sms.base}/channels/sms`, {
        ...twilio.addAccount(),
        from: '+33757000001',
        defaultRegion: 'fr',
        apiUrl: twilio.url,
      });
      expect(put.status, put.text).to.equal(200);
      const contactId = await makeContact(sms.client, sms.base, { phone: '06 12 34 56 78' });
      const sent = await sms.client.post(`${sms.base}/messages`, {
        contactId,
        channel: 'sms',
        text: `Code ${HOSTILE}`,
      });
      expect(sent.status, sent.text).to.equal(202);
      await waitForStatus(sms.client, sms.base, sent.body.id, 'sent');
      const smsApp = `/app/${sms.workspaceId}`;
      const list = await consolePage(sms.admin, `${smsApp}/messages?channel=sms`);
      expect(list.text).to.contain(
        `href="${smsApp}/messages/${sent.body.id}">Code &lt;script&gt;alert(1)&lt;/script&gt;`,
      );
      expect(list.text).to.contain('<td>SMS</td>');
      const page = await consolePage(sms.admin, `${smsApp}/messages/${sent.body.id}`);
      expect(page.text).to.contain(`<h1>Message ${sent.body.id}</h1>`);
      expect(page.text).to.contain('<pre class="message-text">Code &lt;script&gt;alert(1)');
      expect(page.text).to.contain('<dt>Encoding</dt><dd>GSM-7</dd>');
      expect(page.text).to.match(/<dt>Segments<\/dt><dd>\d+<\/dd>/);
      expect(page.text).to.contain('<dd>+33612345678</dd>');
      expect(page.text).to.not.contain('message-frame');
      expectInert(page.text);
    } finally {
      await twilio.stop();
    }
  });

  it('lets a MEMBER read; another workspace and unknown ids are the 404 page', async () => {
    const member = await memberOf(ws.admin, ws.workspaceId, 'MEMBER');
    await consolePage(member.client, `${app}/messages`);
    await consolePage(member.client, `${app}/messages/${hostileId}`);
    const other = await workspaceWithAdmin('Other');
    await consolePage(other.client, `/app/${other.workspaceId}/messages/${hostileId}`, 404);
    await consolePage(other.client, `${app}/messages`, 404);
    await consolePage(ws.admin, `${app}/messages/msg_nope`, 404);
    // A cursor naming another workspace's message starts nowhere: an empty page, not a leak.
    const theirs = await consolePage(
      other.client,
      `/app/${other.workspaceId}/messages?after=${Buffer.from(JSON.stringify([hostileId])).toString('base64url')}`,
    );
    expect(theirs.text).to.contain('No message matches');
  });

  it('runs nothing from the HTML frame in Chromium, and passes axe', async () => {
    const member = await memberOf(ws.admin, ws.workspaceId, 'MEMBER');
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      const dialogs: string[] = [];
      page.on('dialog', async (dialog) => {
        dialogs.push(dialog.message());
        await dialog.dismiss();
      });
      await signInBrowser(page, member.user.email, `${app}/messages/${hostileId}`);
      expect(page.url()).to.equal(url(`${app}/messages/${hostileId}`));
      const frame = await eventually(async () => {
        const found = page.frames().find((f) => f !== page.mainFrame());
        const ready = found && (await found.$('#hello'));
        return ready ? found : null;
      });
      // The HTML was parsed (its paragraph and link are there) but none of its script ran.
      expect(await frame.$eval('#hello', (p) => p.textContent)).to.equal('Hello');
      expect(await frame.evaluate(() => document.title)).to.equal('');
      expect(await frame.evaluate(() => document.body.dataset.ran ?? null)).to.equal(null);
      // Sandboxed: an opaque origin, so nothing in it could reach the console's page either.
      const reach = await frame.evaluate(() => {
        try {
          return window.parent.document.title;
        } catch {
          return 'refused';
        }
      });
      expect(reach).to.equal('refused');
      await frame.click('#bad');
      expect(await page.title()).to.match(/^<script>alert\(1\)<\/script>/);
      expect(dialogs).to.deep.equal([]);
      await expectAccessible(page);
      await page.goto(url(`${app}/messages`));
      await expectAccessible(page);
    } finally {
      await close();
    }
  });
});
