// Tracking at send and the public routes: which links are rewritten, the pixel and the honeypot;
// a click's exact redirect, refused tokens (no open redirect), the pixel for any token; the
// workspace's and the campaign's switches.
import { expect } from 'chai';
import { signClickToken } from '../../src/messages/index.ts';
import { outgoing, suiteSink } from '../messages/support.ts';
import { eventually, expectProblem } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { campaignMail, classifiedHits, hit, sentAMinuteAgo, suiteLanding, trackingOf } from './support.ts';

describe('tracking: links, pixel and redirects', function () {
  this.timeout(60_000);
  const sink = suiteSink();
  const landing = suiteLanding();

  it('rewrites web links only, adds a hidden honeypot and a pixel, and leaves the text part plain', async () => {
    const { html, mail } = await campaignMail(sink, landing.origin);
    const { links, honeypot, pixel } = trackingOf(html);
    expect([...links.keys()]).to.deep.equal(['offer', 'blog']);
    for (const path of links.values()) expect(path).to.match(/^\/t\/c\/[\w-]+\.msg_\w+\.[\w-]+\.[\w-]+$/);
    expect(honeypot).to.match(/^\/t\/c\/[\w-]+\.msg_\w+\.[\w-]+$/);
    expect(pixel).to.match(/^\/t\/o\//);
    expect(html).to.include('href="mailto:help@acme.test"');
    expect(html).to.include(`data-track="off" href="${landing.origin}/plain"`);
    expect(html).to.match(/href="http:\/\/localhost:\d+\/u\/[^"]+">Unsubscribe/);
    expect(String(mail.mail.text)).to.include(`${landing.origin}/offer?utm=mail&x=1#top`);
    expect(String(mail.mail.text)).not.to.include('/t/c/');
  });

  it('redirects a click 302 to the exact original URL with no-store; a bad token is a 400 page', async () => {
    const { html } = await campaignMail(sink, landing.origin);
    const offer = trackingOf(html).links.get('offer')!;
    const clicked = await hit(offer);
    expect(clicked.status).to.equal(302);
    expect(clicked.headers.get('location')).to.equal(`${landing.origin}/offer?utm=mail&x=1#top`);
    expect(clicked.headers.get('cache-control')).to.include('no-store');

    const [, , , encoded, mac] = /^\/t\/c\/([\w-]+)\.(msg_\w+)\.([\w-]+)\.([\w-]+)$/.exec(offer) ?? [];
    const evil = Buffer.from('https://evil.test/').toString('base64url');
    // The MAC with its first character changed (its last ones may already be whatever we would write).
    const tampered = `${offer.slice(0, -mac.length)}${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    for (const path of [offer.replace(encoded, evil), tampered, '/t/c/nope', `/t/c/x.y.${mac}`]) {
      const refused = await hit(path);
      expect(refused.status, path).to.equal(400);
      expect(refused.headers.get('location')).to.equal(null);
      expect(refused.headers.get('content-type')).to.match(/^text\/html/);
    }
  });

  it('refuses a signed javascript: or data: URL', async () => {
    const { messageId } = await campaignMail(sink, landing.origin);
    for (const url of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>']) {
      const refused = await hit(`/t/c/${signClickToken(server().context.config, messageId, url)}`);
      expect(refused.status).to.equal(400);
      expect(refused.headers.get('location')).to.equal(null);
    }
  });

  it('answers every pixel request with a GIF and no-store, recording only genuine tokens', async () => {
    const { client, base, html, messageId } = await campaignMail(sink, landing.origin);
    await sentAMinuteAgo(messageId);
    const pixel = trackingOf(html).pixel!;
    // Its MAC's last two characters changed (to AA, or to BA where they are AA already).
    const tampered = `${pixel.slice(0, -2)}${pixel.endsWith('AA') ? 'BA' : 'AA'}`;
    for (const path of [pixel, '/t/o/forged', tampered]) {
      const answer = await hit(path);
      expect(answer.status, path).to.equal(200);
      expect(answer.headers.get('content-type')).to.equal('image/gif');
      expect(answer.headers.get('cache-control')).to.include('no-store');
      expect(
        Buffer.from(await answer.arrayBuffer())
          .subarray(0, 6)
          .toString(),
      ).to.equal('GIF89a');
    }
    const hits = await classifiedHits(client, base, messageId, 1);
    expect(hits.map((h) => [h.kind, h.human, h.reasons])).to.deep.equal([['open', true, []]]);
  });

  it('adds nothing when the campaign turns tracking off, or the workspace does', async () => {
    const off = await campaignMail(sink, landing.origin, { tracking: { opens: false, clicks: false } });
    expect(off.html).not.to.include('/t/');
    expect(off.html).to.include(`href="${landing.origin}/offer?utm=mail&amp;x=1#top"`);

    const clicksOnly = await campaignMail(sink, landing.origin, { tracking: { opens: false, clicks: true } });
    expect(trackingOf(clicksOnly.html).pixel).to.equal(undefined);
    expect(trackingOf(clicksOnly.html).links.size).to.equal(2);
    const campaign = await clicksOnly.client.get(`${clicksOnly.base}/campaigns/${clicksOnly.campaignId}`);
    expect(campaign.body.tracking).to.deep.equal({ opens: false, clicks: true });
  });

  it('keeps the workspace switches under …/tracking-settings, validated and applied to the next mail', async () => {
    const { admin, client, base, workspaceId } = await campaignMail(sink, landing.origin);
    const path = `${base}/tracking-settings`;
    expect((await client.get(path)).body).to.deep.equal({ opens: true, clicks: true });
    expectProblem(await admin.put(path, { opens: 'no', clicks: true }), 400);
    const bad = await admin.put(path, { opens: true });
    expect(bad.body.errors[0].path).to.equal('body.clicks');
    const put = await admin.put(path, { opens: false, clicks: false });
    expect(put.status, put.text).to.equal(200);
    expect(put.body).to.deep.equal({ opens: false, clicks: false });
    expect((await client.get(path)).body).to.deep.equal({ opens: false, clicks: false });
    const sent = await client.post(`${base}/messages`, {
      contactId: (await client.post(`${base}/contacts`, { email: `off.${Date.now()}@example.test` })).body.id,
      channel: 'email',
      subject: 'Hi',
      html: `<p><a href="${landing.origin}/x">x</a></p>`,
    });
    expect(sent.status, sent.text).to.equal(202);
    const mail = await eventually(async () =>
      (await sink.received()).find((r) => r.headers['x-switchboard-message-id'] === sent.body.id),
    );
    expect(String(mail.mail.html)).to.equal(`<p><a href="${landing.origin}/x">x</a></p>`);
    expect(await outgoing(workspaceId, 'message.opened')).to.deep.equal([]);
  });
});
