// Double opt-in: the confirmation email asks for consent, so it is not tracked (no pixel, its link
// straight to us), nor is any mail that reaches the person before they confirm. Anyone can type
// anyone's address, so the confirmations an address gets are limited, and the answer never says so.
import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { messagingWorkspace, type Sink, suiteSink } from '../messages/support.ts';
import type { Client } from '../support/client.ts';
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

describe('double opt-in: confirmation limits', function () {
  this.timeout(60_000);
  const sink = suiteSink();

  async function contactOf(client: Client, base: string, email: string) {
    return (await client.get(`${base}/contacts?email=${encodeURIComponent(email)}`)).body.data[0]
      .id as string;
  }

  /** The confirmation emails made for the address (they are made with the submission, in its transaction). */
  async function confirmationsTo(client: Client, base: string, email: string) {
    const list = await client.get(`${base}/messages?contactId=${await contactOf(client, base, email)}`);
    return list.body.data as { id: string }[];
  }

  async function submissionsOf(forms: Client, base: string, formId: string) {
    return (await forms.get(`${base}/forms/${formId}/submissions`)).body.data as {
      confirmation: string;
      confirmedAt: string | null;
    }[];
  }

  it('sends one confirmation for four submissions of one address, answering each alike; none once confirmed', async () => {
    const { client, base, forms, form } = await doiWorkspace(sink);
    const email = `victim.${Date.now()}@example.com`;
    const answers = [];
    for (let n = 0; n < 4; n++) {
      const answer = await subscribe(form.id, email);
      expect(answer.status).to.equal(201);
      const { submissionId, ...rest } = await answer.json();
      expect(submissionId).to.match(/^fsub_/);
      answers.push(rest);
    }
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).to.equal(1);
    expect(answers[0]).to.include({ confirmation: 'pending' });
    expect(await confirmationsTo(client, base, email)).to.have.length(1);
    expect((await submissionsOf(forms, base, form.id)).map((s) => s.confirmation)).to.deep.equal(
      Array(4).fill('pending'),
    );

    // The one link confirms every pending submission of the form by the address.
    const [mail] = await mailsTo(sink, email, 1);
    expect((await fetch(server().baseUrl + confirmPathOf(mail), { method: 'POST' })).status).to.equal(200);
    expect((await submissionsOf(forms, base, form.id)).map((s) => s.confirmation)).to.deep.equal(
      Array(4).fill('confirmed'),
    );
    const again = await subscribe(form.id, email);
    expect(again.status).to.equal(201);
    expect(await again.json()).to.deep.include(answers[0]);
    expect(await confirmationsTo(client, base, email)).to.have.length(1);
    const [latest] = await submissionsOf(forms, base, form.id);
    expect(latest.confirmation).to.equal('confirmed');
  });

  it('sends another confirmation when one is asked for again after the window, still pending', async () => {
    const { client, base, form } = await doiWorkspace(sink);
    const email = `later.${Date.now()}@example.com`;
    expect((await subscribe(form.id, email)).status).to.equal(201);
    expect((await subscribe(form.id, email)).status).to.equal(201);
    expect(await confirmationsTo(client, base, email)).to.have.length(1);
    const window = server().context.config.FORM_CONFIRMATION_WINDOW_MS;
    await server().context.db.query(sql.typeAlias('void')`
      update form_submissions set confirmation_sent_at = confirmation_sent_at - ${window + 3_600_000} * interval '1 millisecond'
      where form_id = ${form.id}
    `);
    expect((await subscribe(form.id, email)).status).to.equal(201);
    expect(await confirmationsTo(client, base, email)).to.have.length(2);
  });

  it('caps the confirmations one address gets across the workspace’s forms, not another address’s', async () => {
    const { client, base, forms, form } = await doiWorkspace(sink);
    const ceiling = server().context.config.FORM_CONFIRMATIONS_PER_ADDRESS;
    const others = [];
    for (let n = 0; n < ceiling; n++)
      others.push(await makeForm(forms, base, { doubleOptIn: true, name: `F${n}` }));
    const email = `spread.${Date.now()}@example.com`;
    for (const each of [form, ...others]) expect((await subscribe(each.id, email)).status).to.equal(201);
    expect(await confirmationsTo(client, base, email)).to.have.length(ceiling);
    const bystander = `bystander.${Date.now()}@example.com`;
    expect((await subscribe(others[0].id, bystander)).status).to.equal(201);
    expect(await confirmationsTo(client, base, bystander)).to.have.length(1);
  });

  it('sends a new link to someone who confirmed and then unsubscribed', async () => {
    const { client, base, form } = await doiWorkspace(sink);
    const email = `returning.${Date.now()}@example.com`;
    expect((await subscribe(form.id, email)).status).to.equal(201);
    const [mail] = await mailsTo(sink, email, 1);
    expect((await fetch(server().baseUrl + confirmPathOf(mail), { method: 'POST' })).status).to.equal(200);
    const contactId = await contactOf(client, base, email);
    const unsubscribed = await client.put(`${base}/contacts/${contactId}/subscriptions`, {
      subscriptions: [{ channel: 'email', status: 'unsubscribed' }],
    });
    expect(unsubscribed.status, unsubscribed.text).to.equal(200);
    expect((await subscribe(form.id, email)).status).to.equal(201);
    expect(await confirmationsTo(client, base, email)).to.have.length(2);
  });
});
