// One contact reached on all three channels by one campaign: an email address, a browser subscribed
// through the public API (publishable key + identity token), and a Telegram chat linked through the
// /start deep link. An event enrolls the contact; the flow sends an email, waits, then a web push
// and a Telegram message. Each provider is a local fake speaking the real protocol.
import { expect } from 'chai';
import { activeCampaign, messagingWorkspace, outgoing, suiteSink } from '../messages/support.ts';
import { type FakePushService, startFakePushService } from '../push/fakePushService.ts';
import { addPushChannel, subscribeByEmail } from '../push/support.ts';
import { eventually, uniqueEmail } from '../support/factories.ts';
import { fakeBotApi } from '../support/fakeBotApi.ts';
import { addTelegramChannel, linkChat, newChatId } from '../telegram/support.ts';

type Message = { id: string; channel: string; status: string; stepKey: string | null; campaignId: string };

const STEPS = [
  { type: 'send', channel: 'email', subject: 'Welcome, {{ contact.firstName }}', body: '<p>Hi</p>' },
  { type: 'wait', duration: 'PT1S' },
  {
    type: 'send',
    channel: 'push',
    title: 'Hi {{ contact.firstName }}',
    body: 'Your cart is waiting',
    url: 'https://shop.example.com/cart',
  },
  { type: 'send', channel: 'telegram', text: 'Hello {{ contact.firstName }}, from the bot' },
];

describe('campaigns: one contact on email, web push and Telegram', function () {
  this.timeout(40_000);
  const sink = suiteSink();
  let push: FakePushService;
  before(async () => {
    push = await startFakePushService();
  });
  after(() => push.close());

  it('sends each step on its channel, lists the three messages, reports them per step and emits message.sent', async () => {
    // 1. One workspace with the three channels, set up as an admin would.
    const messaging = await messagingWorkspace(sink);
    const ws = await addTelegramChannel({
      ...messaging,
      ...(await addPushChannel(messaging.admin, messaging.base)),
    });
    const { client, base, workspaceId } = ws;

    // 2. The contact: subscribed from the shop's page, then its Telegram chat linked.
    const email = uniqueEmail('ada');
    const browser = push.browser();
    const contactId = await subscribeByEmail(ws, email, browser.subscription);
    const named = await client.patch(`${base}/contacts/${contactId}`, { firstName: 'Ada' });
    expect(named.status, named.text).to.equal(200);
    const chatId = newChatId();
    await linkChat(ws, contactId, chatId);

    // 3. The campaign, triggered by an event.
    const campaignId = await activeCampaign(client, base, 'signup', STEPS);
    const event = await client.post(`${base}/events`, { type: 'signup', contactId });
    expect(event.status, event.text).to.equal(201);

    // 4. Three messages, all sent.
    const messages = await eventually(async () => {
      const listed = await client.get(`${base}/messages?contactId=${contactId}`);
      expect(listed.status, listed.text).to.equal(200);
      const data = listed.body.data as Message[];
      return data.length === 3 && data.every((m) => m.status === 'sent') ? data : null;
    }, 20_000);
    const byChannel = Object.fromEntries(messages.map((m) => [m.channel, m]));
    expect(Object.keys(byChannel)).to.have.members(['email', 'push', 'telegram']);
    expect(messages.every((m) => m.campaignId === campaignId)).to.equal(true);
    expect([byChannel.email.stepKey, byChannel.push.stepKey, byChannel.telegram.stepKey]).to.deep.equal([
      '0',
      '2',
      '3',
    ]);

    // 5. What each provider received.
    const mails = (await sink.received()).filter((m) => m.to.includes(email));
    expect(mails.map((m) => m.mail.subject)).to.deep.equal(['Welcome, Ada']);
    const pushed = push.received.filter((r) => r.path === new URL(browser.subscription.endpoint).pathname);
    expect(pushed).to.have.length(1);
    expect(pushed[0].vapid.signatureValid).to.equal(true);
    expect(push.decrypt(pushed[0], browser.keys)).to.include({
      messageId: byChannel.push.id,
      title: 'Hi Ada',
      body: 'Your cart is waiting',
      url: 'https://shop.example.com/cart',
    });
    const chat = fakeBotApi().sentTo(chatId);
    expect(chat.map((m) => m.text)).to.include('Hello Ada, from the bot');

    // 6. The report counts one sent message on each send step; the wait step has none.
    const report = await client.get(`${base}/campaigns/${campaignId}/report`);
    expect(report.status, report.text).to.equal(200);
    expect(report.body.messages.sent).to.equal(3);
    const steps = report.body.steps as { stepKey: string; channel?: string; messages?: { sent: number } }[];
    expect(steps.map((s) => [s.stepKey, s.channel, s.messages?.sent])).to.deep.equal([
      ['0', 'email', 1],
      ['1', undefined, undefined],
      ['2', 'push', 1],
      ['3', 'telegram', 1],
    ]);

    // 7. message.sent for each, in the webhooks outbox.
    const sent = await outgoing(workspaceId, 'message.sent');
    expect(sent.map((data) => [data.channel, data.messageId])).to.have.deep.members([
      ['email', byChannel.email.id],
      ['push', byChannel.push.id],
      ['telegram', byChannel.telegram.id],
    ]);
  });
});
