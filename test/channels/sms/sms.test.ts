// The SMS channel end to end against a local fake Twilio (fakeTwilio.ts): configuration with the
// auth token sealed, a campaign step and a transactional send through the real API and worker, the
// contact's number normalised to E.164 with the channel's default region, delivery reports
// (signed, and forged), STOP and START from the phone, the report's columns, the webhook events,
// and the preview's encoding and segments.
import { expect } from 'chai';
import { z } from 'zod';
import {
  activeCampaign,
  makeContact,
  messagingWorkspace,
  outgoing,
  waitForStatus,
} from '../../messages/support.ts';
import { eventually, expectProblem } from '../../support/factories.ts';
import { sql, testDb } from '../../support/helpers.ts';
import { server } from '../../support/server.ts';
import { FakeTwilio, STOPPED_NUMBER } from './fakeTwilio.ts';

const SENDER = '+33757000001';

type Ws = Awaited<ReturnType<typeof messagingWorkspace>>;

describe('the SMS channel, through a Twilio-compatible API', function () {
  this.timeout(60_000);
  const twilio = new FakeTwilio();
  before(() => twilio.start());
  after(() => twilio.stop());

  async function smsWorkspace() {
    const ws = await messagingWorkspace();
    const account = twilio.addAccount();
    const put = await ws.admin.put(`${ws.base}/channels/sms`, {
      ...account,
      from: SENDER,
      defaultRegion: 'fr',
      apiUrl: twilio.url,
    });
    expect(put.status, put.text).to.equal(200);
    return { ...ws, account, channel: put.body as { statusCallbackUrl: string; inboundUrl: string } };
  }

  async function subscriptionOf(ws: Ws, contactId: string, channel: string) {
    const got = await ws.client.get(`${ws.base}/contacts/${contactId}/subscriptions`);
    expect(got.status, got.text).to.equal(200);
    return (got.body.subscriptions as { channel: string; status: string }[]).find(
      (s) => s.channel === channel,
    )?.status;
  }

  it('is configured with credentials the provider accepts; the token is sealed and never shown', async () => {
    const ws = await messagingWorkspace();
    const account = twilio.addAccount();
    const wrong = await ws.admin.put(`${ws.base}/channels/sms`, {
      accountSid: account.accountSid,
      authToken: 'f'.repeat(32),
      from: SENDER,
      apiUrl: twilio.url,
    });
    expect(expectProblem(wrong, 400).detail).to.be.a('string');
    expect(JSON.stringify(wrong.body)).to.include('body.authToken');
    const neither = await ws.admin.put(`${ws.base}/channels/sms`, { ...account, apiUrl: twilio.url });
    expectProblem(neither, 400);
    const badNumber = await ws.admin.put(`${ws.base}/channels/sms`, {
      ...account,
      from: '12',
      apiUrl: twilio.url,
    });
    expectProblem(badNumber, 400);

    const put = await ws.admin.put(`${ws.base}/channels/sms`, {
      ...account,
      from: '+33 7 57 00 00 01',
      apiUrl: twilio.url,
    });
    expect(put.status, put.text).to.equal(200);
    expect(put.body).to.include({
      channel: 'sms',
      from: SENDER,
      authTokenSet: true,
      accountSid: account.accountSid,
    });
    expect(put.text).not.to.include(account.authToken);
    expect(put.body.inboundUrl).to.match(/\/api\/feedback\/sms\/ws_[^/]+\/inbound$/);
    const got = await ws.admin.get(`${ws.base}/channels/sms`);
    expect(got.text).not.to.include(account.authToken);
    const stored = await testDb().oneFirst(sql.type(z.object({ secrets: z.string() }))`
      select secrets::text from channel_configs where workspace_id = ${ws.workspaceId} and channel = 'sms'`);
    expect(stored).not.to.include(account.authToken);
  });

  it('sends a campaign step and a transactional message, records E.164, and takes signed delivery reports', async () => {
    const ws = await smsWorkspace();
    // Written as the contact gave it: national French form, read in the channel's region (FR).
    const contactId = await makeContact(ws.client, ws.base, {
      email: 'ada@sms.test',
      firstName: 'Ada',
      phone: '06 12 34 56 78',
    });
    const campaignId = await activeCampaign(ws.client, ws.base, 'signup', [
      { type: 'send', channel: 'sms', text: 'Hi {{ contact.firstName }}, welcome!' },
    ]);
    const event = await ws.client.post(`${ws.base}/events`, { type: 'signup', contactId });
    expect(event.status, event.text).to.equal(201);
    const campaignMessage = await eventually(async () => {
      const listed = await ws.client.get(`${ws.base}/messages?contactId=${contactId}&channel=sms`);
      const data = listed.body.data as { id: string; status: string; recipient: string | null }[];
      return data.length === 1 && data[0].status === 'sent' ? data[0] : null;
    }, 20_000);
    expect(campaignMessage.recipient).to.equal('+33612345678');

    const transactional = await ws.client.post(`${ws.base}/messages`, {
      contactId,
      channel: 'sms',
      text: 'Your code is {{ code }}',
      data: { code: '123456' },
    });
    expect(transactional.status, transactional.text).to.equal(202);
    const detail = await waitForStatus(ws.client, ws.base, transactional.body.id, 'sent');
    expect(detail.rendered).to.deep.equal({
      channel: 'sms',
      text: 'Your code is 123456',
      encoding: 'GSM-7',
      segments: 1,
    });

    const sent = twilio.sent.filter((m) => m.accountSid === ws.account.accountSid);
    expect(sent.map((m) => [m.to, m.from, m.body])).to.have.deep.members([
      ['+33612345678', SENDER, 'Hi Ada, welcome!'],
      ['+33612345678', SENDER, 'Your code is 123456'],
    ]);
    expect(sent.every((m) => m.statusCallback === ws.channel.statusCallbackUrl)).to.equal(true);

    // A forged report (signed with another token) is refused and changes nothing.
    const toReport = sent.find((m) => m.body.startsWith('Hi'))!;
    const forged = await twilio.report(toReport, server().baseUrl, 'delivered', { signWith: 'a'.repeat(32) });
    expect(forged.status, forged.text).to.equal(401);
    expect(JSON.parse(forged.text).type).to.be.a('string');
    // The real one: delivered, on the timeline and as message.delivered.
    const delivered = await twilio.report(toReport, server().baseUrl, 'delivered');
    expect(delivered.status, delivered.text).to.equal(204);
    const timeline = await ws.client.get(`${ws.base}/messages/${campaignMessage.id}`);
    expect((timeline.body.timeline as { type: string }[]).map((e) => e.type)).to.include('delivered');
    expect((await outgoing(ws.workspaceId, 'message.delivered')).map((d) => d.messageId)).to.deep.equal([
      campaignMessage.id,
    ]);
    // Undelivered, with the carrier's error code: the message fails, message.failed says why.
    const other = sent.find((m) => m.body.startsWith('Your code'))!;
    const undelivered = await twilio.report(other, server().baseUrl, 'undelivered', { errorCode: '30003' });
    expect(undelivered.status, undelivered.text).to.equal(204);
    const failed = await waitForStatus(ws.client, ws.base, transactional.body.id, 'failed');
    expect(failed.error).to.equal('undelivered (error 30003)');
    expect(
      (await outgoing(ws.workspaceId, 'message.failed')).map((d) => [d.messageId, d.error]),
    ).to.deep.equal([[transactional.body.id, 'undelivered (error 30003)']]);

    // The report has the SMS step in its columns.
    const report = await ws.client.get(`${ws.base}/campaigns/${campaignId}/report`);
    expect(report.status, report.text).to.equal(200);
    expect(
      report.body.steps.map((s: { channel?: string; messages?: { sent: number } }) => [
        s.channel,
        s.messages?.sent,
      ]),
    ).to.deep.equal([['sms', 1]]);
    expect((await outgoing(ws.workspaceId, 'message.sent')).map((d) => d.channel)).to.deep.equal([
      'sms',
      'sms',
    ]);
  });

  it('STOP from the phone unsubscribes the contact from SMS (unsubscribe.sms); START brings them back', async () => {
    const ws = await smsWorkspace();
    const contactId = await makeContact(ws.client, ws.base, {
      email: 'bob@sms.test',
      phone: '+33 6 98 76 54 32',
    });
    const from = '+33698765432';
    const text = (body: string) =>
      twilio.inbound(ws.account, ws.channel.inboundUrl, server().baseUrl, { from, to: SENDER, body });

    const forged = await twilio.inbound(
      { ...ws.account, authToken: 'b'.repeat(32) },
      ws.channel.inboundUrl,
      server().baseUrl,
      {
        from,
        to: SENDER,
        body: 'STOP',
      },
    );
    expect(forged.status, forged.text).to.equal(401);
    expect(await subscriptionOf(ws, contactId, 'sms')).to.equal('subscribed');

    expect((await text('  stop ')).status).to.equal(204);
    expect(await subscriptionOf(ws, contactId, 'sms')).to.equal('unsubscribed');
    expect(await outgoing(ws.workspaceId, 'unsubscribe.sms')).to.deep.equal([{ contactId, channel: 'sms' }]);
    // A send now is suppressed, not sent.
    const blocked = await ws.client.post(`${ws.base}/messages`, { contactId, channel: 'sms', text: 'Sale!' });
    expect((await waitForStatus(ws.client, ws.base, blocked.body.id, 'suppressed')).error).to.equal(
      'unsubscribed from sms',
    );
    // Another text is only acknowledged; a synonym repeats nothing.
    expect((await text('hello')).status).to.equal(204);
    expect((await text('QUIT')).status).to.equal(204);
    expect(await outgoing(ws.workspaceId, 'unsubscribe.sms')).to.have.length(1);

    expect((await text('Start')).status).to.equal(204);
    expect(await subscriptionOf(ws, contactId, 'sms')).to.equal('subscribed');
    const again = await ws.client.post(`${ws.base}/messages`, {
      contactId,
      channel: 'sms',
      text: 'Welcome back',
    });
    await waitForStatus(ws.client, ws.base, again.body.id, 'sent');
  });

  it('fails a number it cannot read, and unsubscribes one the provider says replied STOP', async () => {
    const ws = await smsWorkspace();
    const nowhere = await makeContact(ws.client, ws.base, { email: 'x@sms.test', phone: '12' });
    const none = await makeContact(ws.client, ws.base, { email: 'y@sms.test' });
    const stopped = await makeContact(ws.client, ws.base, { email: 'z@sms.test', phone: STOPPED_NUMBER });
    const send = async (contactId: string) =>
      (await ws.client.post(`${ws.base}/messages`, { contactId, channel: 'sms', text: 'Hi' })).body
        .id as string;
    const invalid = await waitForStatus(ws.client, ws.base, await send(nowhere), 'failed');
    expect(invalid.error).to.match(/not a valid phone number \(read in FR\)/);
    const missing = await waitForStatus(ws.client, ws.base, await send(none), 'suppressed');
    expect(missing.error).to.equal('the contact has no phone number');
    const refused = await waitForStatus(ws.client, ws.base, await send(stopped), 'failed');
    expect(refused.error).to.include('21610');
    expect(await subscriptionOf(ws, stopped, 'sms')).to.equal('unsubscribed');
  });

  it('previews a step with its encoding and segments; the rate and its default are per channel', async () => {
    const ws = await smsWorkspace();
    const long = 'Ünïcödé ✓ '.repeat(8); // 80 characters, UCS-2: two segments of at most 67
    const created = await ws.client.post(`${ws.base}/campaigns`, {
      name: 'Preview',
      trigger: { type: 'event', eventType: 'x' },
      steps: [
        { type: 'send', channel: 'sms', text: 'Hi {{ contact.firstName }} [ok] €5' },
        { type: 'send', channel: 'sms', text: long },
      ],
    });
    expect(created.status, created.text).to.equal(201);
    const contactId = await makeContact(ws.client, ws.base, { email: 'p@sms.test', firstName: 'Ada' });
    const gsm = await ws.client.post(`${ws.base}/campaigns/${created.body.id}/preview`, {
      contactId,
      step: '0',
    });
    expect(gsm.status, gsm.text).to.equal(200);
    // [ ] and € are GSM-7 extension characters: 2 septets each, still one segment.
    expect(gsm.body).to.deep.include({
      channel: 'sms',
      text: 'Hi Ada [ok] €5',
      encoding: 'GSM-7',
      segments: 1,
    });
    const ucs = await ws.client.post(`${ws.base}/campaigns/${created.body.id}/preview`, {
      contactId,
      step: '1',
    });
    expect(ucs.body).to.deep.include({ encoding: 'UCS-2', segments: 2 });

    const badStep = await ws.client.post(`${ws.base}/campaigns`, {
      name: 'Bad',
      trigger: { type: 'event', eventType: 'x' },
      steps: [{ type: 'send', channel: 'sms', text: 'Hi {{ contact.firstName' }],
    });
    expectProblem(badStep, 400);

    const pacing = await ws.admin.put(`${ws.base}/campaign-pacing`, {
      ratePerSecond: { sms: 2 },
      quietHours: { start: '22:00', end: '08:00' },
    });
    expect(pacing.status, pacing.text).to.equal(200);
    expect(pacing.body.ratePerSecond).to.deep.equal({ sms: 2 });
  });
});
