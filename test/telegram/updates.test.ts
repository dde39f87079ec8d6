// The bot's webhook and what updates do: the secret header (401 without it), duplicates stored
// once, text messages as stored events, unlinked chats as anonymous contacts, the deep-link flow,
// and a blocked bot as an unsubscribe.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { REPLIES } from '../../src/telegram/process.ts';
import { makeContact, outgoing } from '../messages/support.ts';
import { eventually, expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';
import {
  blockedUpdate,
  linkChat,
  newChatId,
  postUpdate,
  repliesTo,
  type TelegramWorkspace,
  telegramLink,
  telegramWorkspace,
  textUpdate,
} from './support.ts';

const EventRow = z.object({ contact_id: z.string().nullable(), metadata: z.record(z.string(), z.unknown()) });

async function messageEvents(workspaceId: string) {
  return server().context.db.any(sql.type(EventRow)`
    select contact_id, metadata from events
    where workspace_id = ${workspaceId} and type = 'telegram.message_received' order by id
  `);
}

async function chatContact(workspaceId: string, chatId: number) {
  return server().context.db.maybeOneFirst(sql.type(z.object({ contact_id: z.string() }))`
    select contact_id from telegram_chats where workspace_id = ${workspaceId} and chat_id = ${chatId}
  `);
}

async function telegramSubscription(workspace: TelegramWorkspace, contactId: string) {
  const got = await workspace.client.get(`${workspace.base}/contacts/${contactId}/subscriptions`);
  expect(got.status, got.text).to.equal(200);
  return (got.body.subscriptions as { channel: string; status: string; reason: string | null }[]).find(
    (entry) => entry.channel === 'telegram',
  )!;
}

describe('Telegram updates (the bot’s webhook)', () => {
  let workspace: TelegramWorkspace;
  before(async () => {
    workspace = await telegramWorkspace();
  });

  it('refuses an update without the secret header, or with a wrong one (401), and stores nothing', async () => {
    const chatId = newChatId();
    const missing = await postUpdate(workspace, textUpdate(chatId, 'hello'), null);
    expect(missing.status, missing.text).to.equal(401);
    expect(missing.body.title).to.equal('Unauthorized');
    const wrong = await postUpdate(
      workspace,
      textUpdate(chatId, 'hello'),
      `${workspace.secret.slice(0, -1)}${workspace.secret.endsWith('x') ? 'y' : 'x'}`, // always another secret
    );
    expect(wrong.status, wrong.text).to.equal(401);
    const otherWorkspace = await postUpdate(
      { ...workspace, updatesPath: '/api/telegram/updates/ws_nothere' },
      textUpdate(chatId, 'hello'),
    );
    expect(otherWorkspace.status).to.equal(401);
    const stored = await server().context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      select count(*)::int as n from telegram_updates where workspace_id = ${workspace.workspaceId}
        and (body -> 'message' -> 'chat' ->> 'id')::bigint = ${chatId}
    `);
    expect(stored).to.equal(0);
  });

  it('a body without update_id is a 400 (after the secret matched)', async () => {
    const response = await postUpdate(workspace, { message: { text: 'x' } });
    expect(response.status, response.text).to.equal(400);
    expect(response.body.errors[0].path).to.equal('body.update_id');
  });

  it('an unlinked chat that writes becomes an anonymous contact; each text is the stored event', async () => {
    const chatId = newChatId();
    const update = textUpdate(chatId, 'hello there');
    const first = await postUpdate(workspace, update);
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.deep.equal({ received: true, duplicate: false });
    // Telegram redelivers an update it got no 2xx for: stored once, processed once.
    const again = await postUpdate(workspace, update);
    expect(again.body).to.deep.equal({ received: true, duplicate: true });
    const events = await eventually(async () => {
      const rows = (await messageEvents(workspace.workspaceId)).filter(
        (row) => row.metadata.chatId === chatId,
      );
      return rows.length > 0 ? rows : null;
    });
    expect(events).to.have.length(1);
    expect(events[0].metadata).to.deep.equal({
      text: 'hello there',
      chatId,
      messageId: update.message.message_id,
    });
    const contact = await workspace.client.get(`${workspace.base}/contacts/${events[0].contact_id}`);
    expect(contact.body).to.include({ anonymousId: `telegram:${chatId}`, email: null });
    expect(await chatContact(workspace.workspaceId, chatId)).to.equal(events[0].contact_id);
    // The same chat writes again: the same contact.
    await postUpdate(workspace, textUpdate(chatId, 'me again'));
    const both = await eventually(async () => {
      const rows = (await messageEvents(workspace.workspaceId)).filter(
        (row) => row.metadata.chatId === chatId,
      );
      return rows.length === 2 ? rows : null;
    });
    expect(both[1].contact_id).to.equal(events[0].contact_id);
  });

  it('/start without a valid token gets instructions', async () => {
    const chatId = newChatId();
    await postUpdate(workspace, textUpdate(chatId, '/start'));
    expect((await repliesTo(chatId, 1))[0].text).to.equal(REPLIES.instructions);
    await postUpdate(workspace, textUpdate(chatId, '/start NotAToken'));
    expect((await repliesTo(chatId, 2))[1].text).to.equal(REPLIES.instructions);
  });
});

describe('Linking a Telegram chat to a contact', () => {
  let workspace: TelegramWorkspace;
  before(async () => {
    workspace = await telegramWorkspace();
  });

  it('gives a one-time t.me link; /start <token> links the chat and replies', async () => {
    const contactId = await makeContact(workspace.client, workspace.base, { email: 'ann@example.test' });
    const link = await telegramLink(workspace, contactId);
    expect(link.url).to.match(
      new RegExp(`^https://t\\.me/${workspace.bot.username}\\?start=[A-Za-z0-9_-]{32}$`),
    );
    const ttl = Date.parse(link.expiresAt) - Date.now();
    expect(ttl).to.be.within(23 * 3600_000, 24 * 3600_000 + 1000);
    // Only the token's hash is stored.
    const stored = await server().context.db.anyFirst(sql.type(z.object({ token_hash: z.string() }))`
      select token_hash from telegram_link_tokens where workspace_id = ${workspace.workspaceId}
    `);
    expect(stored).not.to.include(link.token);

    const chatId = newChatId();
    await postUpdate(workspace, textUpdate(chatId, `/start ${link.token}`));
    expect((await repliesTo(chatId, 1))[0].text).to.equal(REPLIES.linked);
    expect(await chatContact(workspace.workspaceId, chatId)).to.equal(contactId);
    // The /start is an event of the contact, without the token.
    const events = (await messageEvents(workspace.workspaceId)).filter(
      (row) => row.metadata.chatId === chatId,
    );
    expect(events.map((row) => [row.contact_id, row.metadata.text])).to.deep.equal([[contactId, '/start']]);

    // Used once: another chat with the same token gets instructions and is not linked to the contact.
    const otherChat = newChatId();
    await postUpdate(workspace, textUpdate(otherChat, `/start ${link.token}`));
    expect((await repliesTo(otherChat, 1))[0].text).to.equal(REPLIES.instructions);
    expect(await chatContact(workspace.workspaceId, otherChat)).not.to.equal(contactId);
  });

  it('a chat that wrote before linking: its anonymous contact is merged into the known one', async () => {
    const chatId = newChatId();
    await postUpdate(workspace, textUpdate(chatId, 'who is this?'));
    const anonymousId = await eventually(() => chatContact(workspace.workspaceId, chatId));
    const contactId = await makeContact(workspace.client, workspace.base, { email: 'bo@example.test' });
    await linkChat(workspace, contactId, chatId);
    expect(await chatContact(workspace.workspaceId, chatId)).to.equal(contactId);
    const events = (await messageEvents(workspace.workspaceId)).filter(
      (row) => row.metadata.chatId === chatId,
    );
    expect(events.map((row) => row.contact_id)).to.deep.equal([contactId, contactId]);
    const merged = await workspace.client.get(`${workspace.base}/contacts/${anonymousId}`);
    expect(merged.body.id).to.equal(contactId);
  });

  it('a merge of the chat’s anonymous contact into another moves the chat with it', async () => {
    const chatId = newChatId();
    await postUpdate(workspace, textUpdate(chatId, 'hi'));
    const anonymousId = await eventually(() => chatContact(workspace.workspaceId, chatId));
    const contactId = await makeContact(workspace.client, workspace.base, { email: 'di@example.test' });
    const merged = await workspace.client.post(`${workspace.base}/contacts/merge`, {
      primaryContactId: contactId,
      secondaryContactId: anonymousId,
    });
    expect(merged.status, merged.text).to.equal(200);
    expect(await chatContact(workspace.workspaceId, chatId)).to.equal(contactId);
  });

  it('my_chat_member kicked (the bot was blocked) unsubscribes the contact from Telegram', async () => {
    const chatId = newChatId();
    const contactId = await makeContact(workspace.client, workspace.base, { email: 'cy@example.test' });
    await linkChat(workspace, contactId, chatId);
    expect((await telegramSubscription(workspace, contactId)).status).to.equal('subscribed');
    const posted = await postUpdate(workspace, blockedUpdate(chatId, workspace.bot));
    expect(posted.status, posted.text).to.equal(200);
    const subscription = await eventually(async () => {
      const entry = await telegramSubscription(workspace, contactId);
      return entry.status === 'unsubscribed' ? entry : null;
    });
    expect(subscription.reason).to.equal('provider');
    const unsubscribes = await outgoing(workspace.workspaceId, 'unsubscribe.telegram');
    expect(unsubscribes).to.deep.include({ contactId, channel: 'telegram' });
    // Pressing START again (a new link) subscribes again.
    await linkChat(workspace, contactId, chatId);
    expect((await telegramSubscription(workspace, contactId)).status).to.equal('subscribed');
  });

  it('a link needs the channel (409) and a contact of the workspace (404)', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const contact = await client.post(`/api/workspaces/${workspaceId}/contacts`, {
      email: 'dee@example.test',
    });
    const noChannel = await client.post(
      `/api/workspaces/${workspaceId}/contacts/${contact.body.id}/telegram-link`,
    );
    expectProblem(noChannel, 409);
    const unknown = await workspace.client.post(`${workspace.base}/contacts/ct_nothere/telegram-link`);
    expectProblem(unknown, 404);
    // Another workspace's contact is not found here.
    const foreign = await workspace.client.post(
      `${workspace.base}/contacts/${contact.body.id}/telegram-link`,
    );
    expectProblem(foreign, 404);
  });
});
