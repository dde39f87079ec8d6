// Telegram tests' helpers: a workspace whose Telegram channel is a bot of the fake Bot API, updates
// posted to our webhook as Telegram posts them, and a chat linked to a contact through the real
// deep-link flow (POST …/telegram-link, then `/start <token>` from the chat).
import { expect } from 'chai';
import { messagingWorkspace } from '../messages/support.ts';
import { eventually } from '../support/factories.ts';
import { type Bot, fakeBotApi } from '../support/fakeBotApi.ts';
import { server } from '../support/server.ts';

type MessagingWorkspace = Awaited<ReturnType<typeof messagingWorkspace>>;

export type TelegramWorkspace = MessagingWorkspace & {
  token: string;
  bot: Bot;
  /** The secret_token Telegram was given, and the path of our webhook. */
  secret: string;
  updatesPath: string;
};

export async function telegramWorkspace(): Promise<TelegramWorkspace> {
  return addTelegramChannel(await messagingWorkspace());
}

/** Gives the workspace a Telegram channel: a new bot of the fake Bot API, its webhook set by us. */
export async function addTelegramChannel<W extends MessagingWorkspace>(workspace: W) {
  const { token, bot } = fakeBotApi().addBot();
  const put = await workspace.admin.put(`${workspace.base}/channels/telegram`, { botToken: token });
  expect(put.status, put.text).to.equal(200);
  const webhook = fakeBotApi().webhooks.get(token)!;
  return {
    ...workspace,
    token,
    bot,
    secret: webhook.secret_token!,
    updatesPath: new URL(webhook.url).pathname,
  };
}

let nextUpdateId = 1;
let nextMessageId = 1;

export function textUpdate(chatId: number, text: string) {
  return {
    update_id: nextUpdateId++,
    message: {
      message_id: nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      from: { id: chatId, is_bot: false, first_name: 'Ann' },
      chat: { id: chatId, type: 'private', first_name: 'Ann' },
      text,
    },
  };
}

export function blockedUpdate(chatId: number, bot: Bot) {
  const user = { id: chatId, is_bot: false, first_name: 'Ann' };
  return {
    update_id: nextUpdateId++,
    my_chat_member: {
      chat: { id: chatId, type: 'private', first_name: 'Ann' },
      from: user,
      date: Math.floor(Date.now() / 1000),
      old_chat_member: { user: { ...bot, is_bot: true }, status: 'member' },
      new_chat_member: { user: { ...bot, is_bot: true }, status: 'kicked', until_date: 0 },
    },
  };
}

/** POSTs an update to our webhook as Telegram does (the secret header unless told otherwise). */
export async function postUpdate(
  workspace: TelegramWorkspace,
  update: unknown,
  secret: string | null = workspace.secret,
) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret !== null) headers['x-telegram-bot-api-secret-token'] = secret;
  const response = await fetch(server().baseUrl + workspace.updatesPath, {
    method: 'POST',
    headers,
    body: JSON.stringify(update),
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
}

/** The bot's replies to a chat, once there are at least `count`. */
export async function repliesTo(chatId: number, count = 1) {
  return eventually(async () => {
    const sent = fakeBotApi().sentTo(chatId);
    return sent.length >= count ? sent : null;
  });
}

/** A one-time link for the contact; the token is the link's start parameter. */
export async function telegramLink(workspace: TelegramWorkspace, contactId: string) {
  const link = await workspace.client.post(`${workspace.base}/contacts/${contactId}/telegram-link`);
  expect(link.status, link.text).to.equal(201);
  const url = new URL(link.body.url);
  return { ...link.body, token: url.searchParams.get('start')! } as {
    url: string;
    expiresAt: string;
    token: string;
  };
}

/** Links a chat to the contact through the deep-link flow, as a person pressing START would. */
export async function linkChat(workspace: TelegramWorkspace, contactId: string, chatId: number) {
  const { token } = await telegramLink(workspace, contactId);
  const before = fakeBotApi().sentTo(chatId).length;
  const posted = await postUpdate(workspace, textUpdate(chatId, `/start ${token}`));
  expect(posted.status, posted.text).to.equal(200);
  const replies = await repliesTo(chatId, before + 1);
  expect(replies.at(-1)!.text).to.match(/^Linked/);
}

let nextChat = 5_000_000;
/** A chat id no other test uses. */
export const newChatId = () => nextChat++;
