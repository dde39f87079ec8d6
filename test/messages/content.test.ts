// What a message's content is and what is kept of it: a text-only email's HTML part shows the text
// as written; a send step's preheader is the hidden first element of the HTML body (and in the
// preview); the subject and bodies that went out are kept on the message (the list shows the
// subject, the single message the bodies), a suppressed message says whom it was for, and erasing
// the contact erases what was sent.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import type { Client } from '../support/client.ts';
import { eventually, expectProblem } from '../support/factories.ts';
import { server } from '../support/server.ts';
import {
  activeCampaign,
  makeContact,
  messagingWorkspace,
  type Received,
  type Sink,
  suiteSink,
  waitForStatus,
} from './support.ts';

async function mailTo(sink: Sink, email: string): Promise<Received> {
  return eventually(async () => (await sink.received()).find((r) => r.to.includes(email)));
}

/** The contact's one message, once it is sent. */
async function sentMessageOf(client: Client, base: string, contactId: string) {
  const listed = await eventually(async () => {
    const list = await client.get(`${base}/messages?contactId=${contactId}`);
    return list.body.data?.[0]?.status === 'sent' ? list.body.data[0] : null;
  });
  const detail = await client.get(`${base}/messages/${listed.id}`);
  expect(detail.status, detail.text).to.equal(200);
  return { listed, detail: detail.body };
}

/** What comes right after the body's start tag. */
const afterBodyTag = (html: string) =>
  html.slice(html.search(/<body[^>]*>/) + /<body[^>]*>/.exec(html)![0].length);

const HIDDEN_PREHEADER =
  /^<div style="display:none;[^"]*max-height:0;[^"]*overflow:hidden;mso-hide:all" aria-hidden="true">/;

describe('message content: text-only bodies, preheaders, and what was sent', () => {
  const sink = suiteSink();

  it('a text-only transactional email gets an HTML part showing the text as written: escaped, lines kept, links tracked', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const email = `text.${Date.now()}@example.test`;
    const text =
      'Line one: 3 < 5 & Tom\nLine two <b>not bold</b>\n\nDocs:  https://docs.acme.test/start?a=1&b=2.';
    const sent = await client.post(`${base}/messages`, { email, channel: 'email', subject: 'x', text });
    expect(sent.status, sent.text).to.equal(202);
    await waitForStatus(client, base, sent.body.id, 'sent');

    const { mail } = await mailTo(sink, email);
    expect(mail.text!.trimEnd()).to.equal(text);
    const html = mail.html as string;
    expect(html).to.contain(
      '<p>Line one: 3 &#60; 5 &#38; Tom<br>\nLine two &#60;b&#62;not bold&#60;/b&#62;</p>',
    );
    expect(html).not.to.contain('<b>');
    // The second paragraph: two spaces kept, the address a tracked link, the full stop left outside it.
    expect(html).to.match(
      /<p>Docs: &nbsp;<a href="http:\/\/[^"]+\/t\/c\/[^"]+">https:\/\/docs\.acme\.test\/start\?a=1&#38;b=2<\/a>\.<\/p>/,
    );
    expect(html).to.match(/<img src="http:\/\/[^"]+\/t\/o\/[^"]+"[^>]*>\s*<\/body>/);
  });

  it('a campaign step whose body has no HTML tag is sent as text the same way', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const steps = [
      {
        type: 'send',
        channel: 'email',
        subject: 'Welcome',
        body: 'Hi {{ contact.firstName }},\n\nYour plan: 3 < 5 & "more"\nThanks',
      },
    ];
    await activeCampaign(client, base, 'text_signup', steps);
    const email = `step.${Date.now()}@example.test`;
    const contactId = await makeContact(client, base, { email, firstName: '<i>Ann</i>' });
    const event = await client.post(`${base}/events`, { type: 'text_signup', contactId });
    expect(event.status, event.text).to.equal(201);
    await sentMessageOf(client, base, contactId);

    const { mail } = await mailTo(sink, email);
    expect(mail.text!.trimEnd()).to.equal('Hi <i>Ann</i>,\n\nYour plan: 3 < 5 & "more"\nThanks');
    expect(mail.html).to.contain(
      '<p>Hi &#60;i&#62;Ann&#60;/i&#62;,</p>\n<p>Your plan: 3 &#60; 5 &#38; &#34;more&#34;<br>\nThanks</p>',
    );
  });

  it('a send step’s preheader is the hidden first element of the HTML body, rendered and escaped, with padding after it', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const steps = [
      {
        type: 'send',
        channel: 'email',
        subject: 'Welcome',
        body: '<html><head><title>W</title></head><body><p>Hello {{ contact.firstName }}</p><a href="https://acme.test/go">go</a></body></html>',
        preheader: 'Your trial has begun, {{ contact.firstName }}',
      },
    ];
    const campaignId = await activeCampaign(client, base, 'pre_signup', steps);
    const email = `pre.${Date.now()}@example.test`;
    const contactId = await makeContact(client, base, { email, firstName: 'Ann & <Co>' });
    const event = await client.post(`${base}/events`, { type: 'pre_signup', contactId });
    expect(event.status, event.text).to.equal(201);
    const { detail } = await sentMessageOf(client, base, contactId);

    const html = (await mailTo(sink, email)).mail.html as string;
    const body = afterBodyTag(html);
    expect(body).to.match(HIDDEN_PREHEADER);
    expect(body).to.contain('>Your trial has begun, Ann &#38; &#60;Co&#62;&#847;&zwnj;&nbsp;&#847;');
    // The honeypot comes after it: the preheader is what the inbox previews.
    expect(body.indexOf('</div>')).to.be.below(body.indexOf('/t/c/'));
    expect(detail.rendered.preheader).to.equal('Your trial has begun, Ann & <Co>');

    const preview = await client.post(`${base}/campaigns/${campaignId}/preview`, { contactId, step: '0' });
    expect(preview.status, preview.text).to.equal(200);
    expect(preview.body.preheader).to.equal('Your trial has begun, Ann & <Co>');
    expect(afterBodyTag(preview.body.html)).to.match(HIDDEN_PREHEADER);

    const bad = await client.post(`${base}/campaigns`, {
      name: 'Bad preheader',
      trigger: { type: 'event', eventType: 'x' },
      steps: [{ ...steps[0], preheader: 'Hi {{ contact.firstName | evil }}' }],
    });
    expectProblem(bad, 400);
    expect(bad.body.errors[0].path).to.equal('body.steps.0.preheader');
  });

  it('keeps what was sent: the list shows the rendered subject, the message its subject, HTML and text as sent', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const email = `kept.${Date.now()}@example.test`;
    const contactId = await makeContact(client, base, { email, firstName: 'Ada' });
    const subject = 'Welcome, {{ contact.firstName | default: "there" }}!';
    const sent = await client.post(`${base}/messages`, {
      contactId,
      channel: 'email',
      subject,
      html: '<p>Hi {{ contact.firstName }}, <a href="https://acme.test/start">start</a></p>',
      text: 'Hi {{ contact.firstName }}: https://acme.test/start',
    });
    expect(sent.status, sent.text).to.equal(202);
    const { listed, detail } = await sentMessageOf(client, base, contactId);
    expect(listed).to.include({ subject, renderedSubject: 'Welcome, Ada!' });
    expect(listed).not.to.have.property('rendered');

    const { mail } = await mailTo(sink, email);
    expect(detail.renderedSubject).to.equal('Welcome, Ada!');
    expect(detail.rendered).to.deep.equal({
      channel: 'email',
      subject: 'Welcome, Ada!',
      html: mail.html,
      text: 'Hi Ada: https://acme.test/start',
    });
    expect(detail.rendered.html).to.match(/\/t\/c\//);
  });

  it('a suppressed message shows whom it was for and why, and nothing rendered', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const email = `opted.${Date.now()}@example.test`;
    const contactId = await makeContact(client, base, { email });
    const put = await client.put(`${base}/contacts/${contactId}/subscriptions`, {
      subscriptions: [{ channel: 'email', status: 'unsubscribed' }],
    });
    expect(put.status, put.text).to.equal(200);
    const sent = await client.post(`${base}/messages`, {
      contactId,
      channel: 'email',
      subject: 'S',
      text: 'T',
    });
    const suppressed = await waitForStatus(client, base, sent.body.id, 'suppressed');
    expect(suppressed).to.include({
      contactId,
      recipient: email,
      error: 'unsubscribed from email',
      renderedSubject: null,
      rendered: null,
    });
  });

  it('erasing the contact erases what was sent to it', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const contactId = await makeContact(client, base, { email: `erased.${Date.now()}@example.test` });
    const sent = await client.post(`${base}/messages`, {
      contactId,
      channel: 'email',
      subject: 'Secret {{ contact.email }}',
      text: 'Body',
    });
    expect((await waitForStatus(client, base, sent.body.id, 'sent')).rendered).to.not.equal(null);

    expect((await client.delete(`${base}/contacts/${contactId}`)).status).to.equal(204);
    expectProblem(await client.get(`${base}/messages/${sent.body.id}`), 404);
    const left = await server().context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      select count(*)::int as n from messages where id = ${sent.body.id}
    `);
    expect(left).to.equal(0);
  });
});
