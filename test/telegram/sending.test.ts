// A campaign's Telegram send step through the fake Bot API: rendered (Liquid; HTML parse mode
// escapes the contact's values), sent to the chat linked last, suppressed without one, and
// Telegram's refusals classified: blocked or deactivated → unsubscribed, chat not found → failed
// at once, 429 → retried after retry_after while other sends go on.
import { expect } from 'chai';
import { z } from 'zod';
import { reserveSendSlot } from '../../src/channels/index.ts';
import { sql } from '../../src/db/pool.ts';
import { activeCampaign, makeContact, outgoing } from '../messages/support.ts';
import type { Client } from '../support/client.ts';
import { eventually } from '../support/factories.ts';
import { BLOCKED_CHAT, DEACTIVATED_CHAT, fakeBotApi, MISSING_CHAT } from '../support/fakeBotApi.ts';
import { server } from '../support/server.ts';
import {
  linkChat,
  newChatId,
  postUpdate,
  type TelegramWorkspace,
  telegramLink,
  telegramWorkspace,
  textUpdate,
} from './support.ts';

type Message = {
  id: string;
  status: string;
  error: string | null;
  recipient: string | null;
  attempts: number;
};

/** The contact's messages once every one of them is final (or in the wanted state). */
async function messagesOf(
  client: Client,
  base: string,
  contactId: string,
  until: (m: Message) => boolean,
  timeoutMs = 10_000,
) {
  return eventually(async () => {
    const got = await client.get(`${base}/messages?contactId=${contactId}`);
    const data = got.body.data as Message[];
    return data.length > 0 && data.every(until) ? data : null;
  }, timeoutMs);
}

const final = (message: Message) => !['queued', 'sending'].includes(message.status);

/** Links a chat whose replies may fail (the fake refuses some chats): waits for the link itself. */
async function linkFailingChat(workspace: TelegramWorkspace, contactId: string, chatId: number) {
  const { token } = await telegramLink(workspace, contactId);
  await postUpdate(workspace, textUpdate(chatId, `/start ${token}`));
  await eventually(() =>
    server().context.db.maybeOne(sql.type(z.object({ chat_id: z.number() }))`
      select chat_id from telegram_chats where workspace_id = ${workspace.workspaceId}
        and chat_id = ${chatId} and contact_id = ${contactId}
    `),
  );
}

async function contactWithChat(
  workspace: TelegramWorkspace,
  chatId: number | null,
  fields: Record<string, unknown> = {},
) {
  const contactId = await makeContact(workspace.client, workspace.base, fields);
  if (chatId !== null && chatId >= 400_000 && chatId < 404_000)
    await linkFailingChat(workspace, contactId, chatId);
  else if (chatId !== null) await linkChat(workspace, contactId, chatId);
  return contactId;
}

async function trigger(workspace: TelegramWorkspace, contactId: string, type = 'signup') {
  const event = await workspace.client.post(`${workspace.base}/events`, { type, contactId });
  expect(event.status, event.text).to.equal(201);
}

describe('Telegram send steps', () => {
  it('sends the rendered text to the contact’s linked chat', async () => {
    const workspace = await telegramWorkspace();
    const chatId = newChatId();
    const contactId = await contactWithChat(workspace, chatId, { firstName: 'Ann' });
    const campaignId = await activeCampaign(workspace.client, workspace.base, 'signup', [
      { type: 'send', channel: 'telegram', text: 'Hi {{ contact.firstName }} from {{ workspace.name }}' },
    ]);
    await trigger(workspace, contactId);
    const [message] = await messagesOf(workspace.client, workspace.base, contactId, final);
    expect(message).to.include({ status: 'sent', recipient: String(chatId), error: null });
    const sent = fakeBotApi()
      .sentTo(chatId)
      .filter((entry) => entry.token === workspace.token);
    expect(sent.at(-1)!.text).to.equal('Hi Ann from Acme Shop');
    const detail = await workspace.client.get(`${workspace.base}/messages/${message.id}`);
    expect(detail.body).to.deep.include({
      renderedSubject: null,
      rendered: { channel: 'telegram', text: 'Hi Ann from Acme Shop' },
    });
    expect(await outgoing(workspace.workspaceId, 'message.sent')).to.deep.include({
      contactId,
      channel: 'telegram',
      messageId: message.id,
      status: 'sent',
      campaignId,
    });
  });

  it('with parse mode HTML the contact’s values are escaped', async () => {
    const workspace = await telegramWorkspace();
    const chatId = newChatId();
    const contactId = await contactWithChat(workspace, chatId, { firstName: '<i>Eve</i> & co' });
    await activeCampaign(workspace.client, workspace.base, 'signup', [
      { type: 'send', channel: 'telegram', text: '<b>Hello</b> {{ contact.firstName }}', parseMode: 'HTML' },
    ]);
    await trigger(workspace, contactId);
    await messagesOf(workspace.client, workspace.base, contactId, (m) => m.status === 'sent');
    const sent = fakeBotApi().sentTo(chatId).at(-1)!;
    expect(sent).to.include({ text: '<b>Hello</b> &lt;i&gt;Eve&lt;/i&gt; &amp; co', parse_mode: 'HTML' });
  });

  it('a contact with no linked chat is suppressed', async () => {
    const workspace = await telegramWorkspace();
    const contactId = await contactWithChat(workspace, null, { email: 'nochat@example.test' });
    await activeCampaign(workspace.client, workspace.base, 'signup', [
      { type: 'send', channel: 'telegram', text: 'x' },
    ]);
    await trigger(workspace, contactId);
    const [message] = await messagesOf(workspace.client, workspace.base, contactId, final);
    expect(message).to.include({
      status: 'suppressed',
      recipient: null,
      error: 'the contact has no linked Telegram chat',
    });
  });

  for (const [name, chatId, description] of [
    ['blocked the bot', BLOCKED_CHAT, 'Forbidden: bot was blocked by the user'],
    ['deleted their account', DEACTIVATED_CHAT, 'Forbidden: user is deactivated'],
  ] as const) {
    it(`a user who ${name} (403) is unsubscribed from Telegram`, async () => {
      const workspace = await telegramWorkspace();
      const contactId = await contactWithChat(workspace, chatId);
      await activeCampaign(workspace.client, workspace.base, 'signup', [
        { type: 'send', channel: 'telegram', text: 'x' },
      ]);
      await trigger(workspace, contactId);
      const [message] = await messagesOf(workspace.client, workspace.base, contactId, final);
      expect(message).to.include({ status: 'failed', error: `403 ${description}`, attempts: 1 });
      const subscriptions = await workspace.client.get(
        `${workspace.base}/contacts/${contactId}/subscriptions`,
      );
      const telegram = subscriptions.body.subscriptions.find(
        (entry: { channel: string }) => entry.channel === 'telegram',
      );
      expect(telegram).to.include({ status: 'unsubscribed', reason: 'provider' });
      expect(await outgoing(workspace.workspaceId, 'unsubscribe.telegram')).to.deep.equal([
        { contactId, channel: 'telegram' },
      ]);
    });
  }

  it('chat not found (400) fails the message at once, and the contact stays subscribed', async () => {
    const workspace = await telegramWorkspace();
    const contactId = await contactWithChat(workspace, MISSING_CHAT);
    await activeCampaign(workspace.client, workspace.base, 'signup', [
      { type: 'send', channel: 'telegram', text: 'x' },
    ]);
    await trigger(workspace, contactId);
    const [message] = await messagesOf(workspace.client, workspace.base, contactId, final);
    expect(message).to.include({ status: 'failed', error: '400 Bad Request: chat not found', attempts: 1 });
    expect(await outgoing(workspace.workspaceId, 'unsubscribe.telegram')).to.deep.equal([]);
  });

  it('a 429 is retried after retry_after, and other chats are served meanwhile', async () => {
    const workspace = await telegramWorkspace();
    const limitedChat = newChatId();
    const otherChat = newChatId();
    const limited = await contactWithChat(workspace, limitedChat);
    const other = await contactWithChat(workspace, otherChat);
    await activeCampaign(workspace.client, workspace.base, 'signup', [
      { type: 'send', channel: 'telegram', text: 'news' },
    ]);
    // retry_after (3 s) differs from the test retry schedule (1 s): the wait must be Telegram's.
    fakeBotApi().rateLimitNext(limitedChat, 3);
    await trigger(workspace, limited);
    const [deferred] = await messagesOf(
      workspace.client,
      workspace.base,
      limited,
      (m) => m.attempts >= 1 && m.status === 'queued',
    );
    const detail = await workspace.client.get(`${workspace.base}/messages/${deferred.id}`);
    const retrying = detail.body.timeline.find((entry: { type: string }) => entry.type === 'retrying');
    expect(retrying.detail.error).to.equal('429 Too Many Requests: retry after 3');
    const wait = Date.parse(retrying.detail.nextAttemptAt) - Date.parse(retrying.occurredAt);
    expect(wait).to.be.within(2_900, 3_200);

    await trigger(workspace, other);
    await messagesOf(workspace.client, workspace.base, other, (m) => m.status === 'sent');
    const [retried] = await messagesOf(
      workspace.client,
      workspace.base,
      limited,
      (m) => m.status === 'sent',
      15_000,
    );
    expect(retried.attempts).to.equal(2);
    const otherSent = fakeBotApi().sentTo(otherChat).at(-1)!.at;
    const limitedSent = fakeBotApi().sentTo(limitedChat).at(-1)!.at;
    expect(otherSent).to.be.lessThan(limitedSent);
    expect(limitedSent - Date.parse(retrying.occurredAt)).to.be.at.least(2_900);
  });

  it('Telegram sends are limited to 25 a second per workspace by default; the pacing sets another rate', async () => {
    const workspace = await telegramWorkspace();
    const db = server().context.db;
    // Two reservations in one transaction see the same now(): the second slot follows the first by
    // the rate's spacing alone, however long the machine took between them.
    const reserveTwo = () =>
      db.transaction(async (tx) => {
        const slot = () => reserveSendSlot(tx, { workspaceId: workspace.workspaceId, channel: 'telegram' });
        return [await slot(), await slot()];
      });
    const [first, second] = await reserveTwo();
    expect(second!.at.getTime() - first!.at.getTime()).to.be.within(39, 41);

    const paced = await workspace.client.put(`${workspace.base}/campaign-pacing`, {
      ratePerSecond: { telegram: 2 },
    });
    expect(paced.status, paced.text).to.equal(200);
    const [third, fourth] = await reserveTwo();
    expect(fourth!.at.getTime() - third!.at.getTime()).to.be.within(499, 501);

    const chats = [newChatId(), newChatId(), newChatId()];
    const contacts = [];
    for (const chatId of chats) contacts.push(await contactWithChat(workspace, chatId));
    await activeCampaign(workspace.client, workspace.base, 'signup', [
      { type: 'send', channel: 'telegram', text: 'x' },
    ]);
    // Slots are the earliest a send may leave; a send can leave later than its slot (a busy
    // worker), which narrows the gap to the next one. So the sends are held against their earliest
    // possible slots, counted from before the triggers (the reserved slots above are past by then,
    // or the sends are later still): the k-th send no earlier than k × 500 ms after the first slot.
    const firstSlot = Math.max(Date.now(), fourth!.at.getTime() + 500);
    await Promise.all(contacts.map((contactId) => trigger(workspace, contactId)));
    for (const contactId of contacts)
      await messagesOf(workspace.client, workspace.base, contactId, (m) => m.status === 'sent', 15_000);
    const times = chats.map((chatId) => fakeBotApi().sentTo(chatId).at(-1)!.at).sort((a, b) => a - b);
    expect(times[0]).to.be.at.least(firstSlot);
    expect(times[1]).to.be.at.least(firstSlot + 500);
    expect(times[2]).to.be.at.least(firstSlot + 1_000);
  });
});
