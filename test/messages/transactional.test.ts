// Transactional messages end to end: POST …/messages → the worker → the email channel → a local
// SMTP sink; the record, its timeline and its webhooks; suppression; bounces; retries.
import { expect } from 'chai';
import { eventually, expectProblem } from '../support/factories.ts';
import { makeContact, messagingWorkspace, outgoing, sendHi, suiteSink, waitForStatus } from './support.ts';

describe('transactional messages', () => {
  const sink = suiteSink();

  it('renders and sends through SMTP, with our headers, and records sent with its timeline and webhook', async () => {
    const { client, base, workspaceId } = await messagingWorkspace(sink);
    const email = `ada.${Date.now()}@example.test`;
    const contactId = await makeContact(client, base, { email, firstName: 'Ada' });
    const sent = await client.post(`${base}/messages`, {
      contactId,
      channel: 'email',
      subject: 'Receipt for {{ data_order }}',
      html: '<p>Hi {{ contact.firstName }}, order {{ order.id }} from {{ workspace.name }}. <a href="{{ unsubscribe_url }}">unsubscribe</a></p>',
      data: { order: { id: 'A-42' }, data_order: '#42' },
    });
    expect(sent.status, sent.text).to.equal(202);
    expect(sent.body.id).to.match(/^msg_/);
    const message = await waitForStatus(client, base, sent.body.id, 'sent');
    expect(message.timeline.map((entry: { type: string }) => entry.type)).to.deep.equal(['queued', 'sent']);
    expect(message.recipient).to.equal(email);
    expect(message.attempts).to.equal(1);

    const got = (await sink.received()).find((r) => r.to.includes(email))!;
    expect(got.mail.subject).to.equal('Receipt for #42');
    expect(got.mail.html).to.contain('Hi Ada, order A-42 from Acme Shop.');
    expect(got.mail.text).to.contain('Hi Ada, order A-42 from Acme Shop.');
    expect(got.headers['x-switchboard-message-id']).to.equal(sent.body.id);
    expect(got.mail.messageId).to.match(new RegExp(`^<${sent.body.id}@`));
    expect(got.headers['list-unsubscribe']).to.match(/^<http:\/\/[^>]+\/u\/[^>]+>$/);
    expect(got.headers['list-unsubscribe-post']).to.equal('List-Unsubscribe=One-Click');

    const events = await outgoing(workspaceId, 'message.sent');
    expect(events).to.deep.equal([
      { contactId, channel: 'email', messageId: sent.body.id, status: 'sent', campaignId: null },
    ]);
  });

  it('adds <mailto:…> to List-Unsubscribe when the channel has unsubscribeMailto, the token in it', async () => {
    const { admin, client, base } = await messagingWorkspace(sink);
    const channel = { host: '127.0.0.1', port: sink.port, secure: false, fromEmail: 'news@acme.test' };
    for (const bad of ['nope', 'a@{token}.test', '{token}@b@c.test', 'x{token}y{token}@acme.test']) {
      const refused = await admin.put(`${base}/channels/email`, { ...channel, unsubscribeMailto: bad });
      const problem = expectProblem(refused, 400) as unknown as { errors: { path: string }[] };
      expect(problem.errors[0].path, bad).to.equal('body.unsubscribeMailto');
    }
    const sendTo = async (unsubscribeMailto: string) => {
      const put = await admin.put(`${base}/channels/email`, { ...channel, unsubscribeMailto });
      expect(put.status, put.text).to.equal(200);
      expect(put.body.unsubscribeMailto).to.equal(unsubscribeMailto);
      const email = `mailto.${Date.now()}.${Math.random()}@example.test`;
      const sent = await client.post(`${base}/messages`, {
        email,
        channel: 'email',
        subject: 'S',
        text: 'T',
      });
      await waitForStatus(client, base, sent.body.id, 'sent');
      const got = (await sink.received()).find((r) => r.to.includes(email))!;
      const [, token] = /\/u\/([^>]+)>/.exec(got.headers['list-unsubscribe'])!;
      return { header: got.headers['list-unsubscribe'], token };
    };
    const tokened = await sendTo('unsubscribe+{token}@acme.test');
    expect(tokened.header).to.match(/^<http:\/\/[^>]+\/u\/[^>]+>, <mailto:[^>]+>$/);
    expect(tokened.header).to.include(
      `<mailto:unsubscribe+${tokened.token}@acme.test?subject=unsubscribe%20${tokened.token}>`,
    );
    const plain = await sendTo('unsubscribe@acme.test');
    expect(plain.header).to.include(`<mailto:unsubscribe@acme.test?subject=unsubscribe%20${plain.token}>`);
    const cleared = await admin.put(`${base}/channels/email`, channel);
    expect(cleared.body.unsubscribeMailto).to.equal(null);
  });

  it('sends to an email address, making its contact, and honours Idempotency-Key', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const email = `new.${Date.now()}@example.test`;
    const body = {
      email,
      channel: 'email',
      subject: 'Reset',
      text: 'Your code: {{ code }}',
      data: { code: '1234' },
    };
    const headers = { 'idempotency-key': 'reset-1' };
    const first = await client.post(`${base}/messages`, body, { headers });
    expect(first.status, first.text).to.equal(202);
    const again = await client.post(`${base}/messages`, body, { headers });
    expect(again.status).to.equal(202);
    expect(again.body.id).to.equal(first.body.id);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    await waitForStatus(client, base, first.body.id, 'sent');
    const list = await client.get(`${base}/messages?status=sent`);
    expect(list.body.total).to.equal(1);
    expect((await sink.received()).filter((r) => r.to.includes(email))).to.have.length(1);
    expect((await sink.received()).find((r) => r.to.includes(email))!.mail.text).to.contain(
      'Your code: 1234',
    );
  });

  it('a 550 at RCPT is a hard bounce: bounced, message.bounced, and email suppressed from then on', async () => {
    const { client, base, workspaceId } = await messagingWorkspace(sink);
    const email = `gone.${Date.now()}@example.test`;
    sink.reject.set(email, 550);
    const contactId = await makeContact(client, base, { email });
    const sent = await sendHi(client, base, contactId);
    const bounced = await waitForStatus(client, base, sent.body.id, 'bounced');
    expect(bounced.error).to.match(/550/);
    expect(await outgoing(workspaceId, 'message.bounced')).to.deep.equal([
      { messageId: sent.body.id, contactId, bounceType: 'hard' },
    ]);
    const subscriptions = await client.get(`${base}/contacts/${contactId}/subscriptions`);
    const emailState = subscriptions.body.subscriptions.find(
      (s: { channel: string }) => s.channel === 'email',
    );
    expect(emailState).to.include({ status: 'unsubscribed', reason: 'hard_bounce', messageId: sent.body.id });

    // Even ignoreUnsubscribe does not send to a hard-bounced address.
    sink.reject.delete(email);
    const next = await client.post(`${base}/messages`, {
      contactId,
      channel: 'email',
      subject: 'Receipt',
      html: '<p>y</p>',
      ignoreUnsubscribe: true,
    });
    const suppressed = await waitForStatus(client, base, next.body.id, 'suppressed');
    expect(suppressed.error).to.equal('hard bounce');
    expect((await sink.received()).filter((r) => r.to.includes(email))).to.have.length(0);
  });

  it('a deferred send (451) is retried on the schedule, then failed with message.failed', async () => {
    const { client, base, workspaceId } = await messagingWorkspace(sink);
    const email = `later.${Date.now()}@example.test`;
    sink.reject.set(email, 451);
    const contactId = await makeContact(client, base, { email });
    const sent = await sendHi(client, base, contactId);
    const failed = await waitForStatus(client, base, sent.body.id, 'failed');
    expect(failed.attempts).to.equal(3);
    expect(failed.error).to.match(/451/);
    expect(failed.timeline.map((entry: { type: string }) => entry.type)).to.deep.equal([
      'queued',
      'retrying',
      'retrying',
      'failed',
    ]);
    const [event] = await outgoing(workspaceId, 'message.failed');
    expect(event).to.include({ messageId: sent.body.id, contactId });
  });

  it('a deferred send that then succeeds is sent once', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const email = `flaky.${Date.now()}@example.test`;
    sink.reject.set(email, 451);
    const contactId = await makeContact(client, base, { email });
    const sent = await sendHi(client, base, contactId);
    await eventually(async () => {
      const message = (await client.get(`${base}/messages/${sent.body.id}`)).body;
      return message.status === 'queued' && message.attempts === 1;
    });
    sink.reject.delete(email);
    const done = await waitForStatus(client, base, sent.body.id, 'sent');
    expect(done.attempts).to.equal(2);
    expect(done.timeline.map((entry: { type: string }) => entry.type)).to.deep.equal([
      'queued',
      'retrying',
      'sent',
    ]);
    expect((await sink.received()).filter((r) => r.to.includes(email))).to.have.length(1);
  });

  it('a template that fails at send time fails the message with the error', async () => {
    const { client, base, workspaceId } = await messagingWorkspace(sink);
    const contactId = await makeContact(client, base, { email: `t.${Date.now()}@example.test` });
    // Parses, but the render limit stops it: an error only sending can find.
    const sent = await client.post(`${base}/messages`, {
      contactId,
      channel: 'email',
      subject: 'Hi',
      html: '{% for i in (1..100000000) %}{{ i }}{% endfor %}',
    });
    expect(sent.status, sent.text).to.equal(202);
    const failed = await waitForStatus(client, base, sent.body.id, 'failed');
    expect(failed.error).to.match(/^template error in html at line 1/);
    expect((await outgoing(workspaceId, 'message.failed'))[0]).to.include({ messageId: sent.body.id });
  });

  it('a contact without an email address is suppressed with the reason, and nothing is sent', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const contactId = await makeContact(client, base, { anonymousId: `anon-${Date.now()}` });
    const sent = await sendHi(client, base, contactId);
    const suppressed = await waitForStatus(client, base, sent.body.id, 'suppressed');
    expect(suppressed.error).to.equal('the contact has no email address');
    expect(suppressed.timeline.map((entry: { type: string }) => entry.type)).to.deep.equal([
      'queued',
      'suppressed',
    ]);
  });

  it('refuses bad input with a 400 naming the field, and an unknown contact with a 404, sending nothing', async () => {
    const { client, base } = await messagingWorkspace(sink);
    const cases: [unknown, string][] = [
      [{ channel: 'email', subject: 'x', html: 'y' }, 'body.contactId'],
      [{ email: 'a@b.test', contactId: 'ct_x', channel: 'email', subject: 'x', html: 'y' }, 'body.contactId'],
      [{ email: 'a@b.test', channel: 'fax', subject: 'x', html: 'y' }, 'body.channel'],
      [{ email: 'a@b.test', channel: 'email', subject: 'x' }, 'body.html'],
      [{ email: 'a@b.test', channel: 'email', subject: '{{ x | evil }}', html: 'y' }, 'body.subject'],
      [{ email: 'a@b.test', channel: 'email', subject: 'x', html: '{% if %}' }, 'body.html'],
    ];
    for (const [body, path] of cases) {
      const response = await client.post(`${base}/messages`, body);
      const problem = expectProblem(response, 400) as unknown as { errors: { path: string }[] };
      expect(
        problem.errors.map((e) => e.path),
        JSON.stringify(body),
      ).to.include(path);
    }
    const missing = await client.post(`${base}/messages`, {
      contactId: 'ct_nope',
      channel: 'email',
      subject: 'x',
      html: 'y',
    });
    expectProblem(missing, 404);
    expect((await client.get(`${base}/messages`)).body.total).to.equal(0);
  });
});
