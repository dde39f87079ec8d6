// Double opt-in: the confirmation email asks for consent, so it is not tracked (no pixel, its link
// straight to us), nor is any mail that reaches the person before they confirm.
import { expect } from 'chai';
import { messagingWorkspace, type Sink, suiteSink } from '../messages/support.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { formsWorkspace, makeForm, submitForm } from './support.ts';

const JSON_BODY = { 'content-type': 'application/json' };

async function doiWorkspace(sink: Sink) {
  const messaging = await messagingWorkspace(sink);
  const forms = await formsWorkspace(messaging.admin, messaging.workspaceId);
  const form = await makeForm(forms.client, forms.base, { doubleOptIn: true });
  return { ...messaging, forms: forms.client, form };
}

function subscribe(formId: string, email: string) {
  return submitForm(formId, JSON.stringify({ email, consent: true }), JSON_BODY);
}

/** The HTML of every mail the sink got for the address, oldest first. */
async function mailsTo(sink: Sink, email: string, count: number) {
  return eventually(async () => {
    const got = (await sink.received()).filter((r) => r.to.includes(email));
    return got.length >= count ? got.map((r) => String(r.mail.html)) : null;
  });
}

function confirmPathOf(html: string): string {
  return new URL(/href="([^"]+)"/.exec(html)![1]).pathname;
}

describe('double opt-in: consent before tracking', function () {
  this.timeout(60_000);
  const sink = suiteSink();

  it('sends the confirmation without a pixel and with its link straight to the confirmation page', async () => {
    const { form } = await doiWorkspace(sink);
    const email = `untracked.${Date.now()}@example.com`;
    expect((await subscribe(form.id, email)).status).to.equal(201);
    const [html] = await mailsTo(sink, email, 1);
    expect(html).not.to.include('/t/');
    expect(html).not.to.include('<img');
    expect(confirmPathOf(html)).to.match(/^\/f\/confirm\/fsub_/);
  });

  it('does not track the confirmation of a contact already subscribed either', async () => {
    const { client, base, form } = await doiWorkspace(sink);
    const email = `known.${Date.now()}@example.com`;
    expect((await client.post(`${base}/contacts`, { email })).status).to.equal(201);
    expect((await subscribe(form.id, email)).status).to.equal(201);
    const [html] = await mailsTo(sink, email, 1);
    expect(html).not.to.include('/t/');
  });

  it('does not track other mail to a person before they confirm; tracks it once they have', async () => {
    const { client, base, form } = await doiWorkspace(sink);
    const email = `pending.${Date.now()}@example.com`;
    expect((await subscribe(form.id, email)).status).to.equal(201);
    const [confirmation] = await mailsTo(sink, email, 1);
    const contactId = (await client.get(`${base}/contacts?email=${encodeURIComponent(email)}`)).body.data[0]
      .id;
    const subscriptions = await client.get(`${base}/contacts/${contactId}/subscriptions`);
    expect(
      subscriptions.body.subscriptions.find((s: { channel: string }) => s.channel === 'email'),
    ).to.include({
      status: 'unsubscribed',
      reason: 'unconfirmed',
    });
    const receipt = {
      contactId,
      channel: 'email',
      subject: 'Your receipt',
      html: '<p><a href="https://shop.example.com/orders/1">Your order</a></p>',
      ignoreUnsubscribe: true,
    };
    expect((await client.post(`${base}/messages`, receipt)).status).to.equal(202);
    const [, before] = await mailsTo(sink, email, 2);
    expect(before).to.equal(receipt.html);

    const confirmed = await fetch(server().baseUrl + confirmPathOf(confirmation), { method: 'POST' });
    expect(confirmed.status).to.equal(200);
    expect((await client.post(`${base}/messages`, receipt)).status).to.equal(202);
    const [, , after] = await mailsTo(sink, email, 3);
    expect(after).to.include('/t/c/');
    expect(after).to.include('/t/o/');
  });
});
