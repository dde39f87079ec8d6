// What a received update does, in the worker, in one transaction per update (the update row is
// locked and marked processed in it, so a retried or duplicate job does nothing twice):
//   - `/start <token>`: the token's contact gets the chat (an anonymous contact made earlier for
//     the chat is merged into it), Telegram is subscribed again, and the bot says so;
//   - `/start` without a valid token: the bot explains how to link;
//   - any text: the stored event `telegram.message_received` {text, chatId, messageId} through the
//     ingest pipeline (segments, triggers, scores); a chat linked to nobody becomes an anonymous
//     contact keyed by its chat id (anonymousId `telegram:<chatId>`);
//   - `my_chat_member` with status `kicked` (the user blocked the bot): Telegram unsubscribed,
//     `unsubscribe.telegram`.
// Replies go out after the commit: a reply must not announce a link that was rolled back.
import { z } from 'zod';
import { sendTelegramText, telegramAnonymousId } from '../channels/index.ts';
import { type ContactEffects, findAndLockContacts, mergeContactRows } from '../contacts/index.ts';
import type { AppContext } from '../core/context.ts';
import type { Tx } from '../db/pool.ts';
import { ingestEvents } from '../events/index.ts';
import { putSubscriptions, unsubscribeContact } from '../messages/index.ts';
import { redeemLinkToken } from './linking.ts';
import { findChatContact, linkChat, lockUpdate, markUpdateProcessed } from './queries.ts';

const Chat = z.object({ id: z.number().int(), type: z.string() });
const Message = z.object({ message_id: z.number().int(), chat: Chat, text: z.string().optional() });
const ChatMemberUpdate = z.object({ chat: Chat, new_chat_member: z.object({ status: z.string() }) });
const Update = z.object({
  update_id: z.number().int(),
  message: Message.optional(),
  my_chat_member: ChatMemberUpdate.optional(),
});
type Message = z.infer<typeof Message>;

export const REPLIES = {
  linked: 'Linked: you will get your messages here.',
  instructions:
    'Hello! To get messages here, open the Telegram link you were given (it starts this chat with a code). ' +
    'If it has expired, ask for a new one.',
} as const;

/** `/start`, `/start <payload>` or `/start@bot <payload>`: the payload, or '' without one. */
function startPayload(text: string): string | null {
  const match = /^\/start(?:@\w+)?(?:\s+(\S*))?\s*$/.exec(text);
  return match ? (match[1] ?? '') : null;
}

export type UpdateJob = { workspaceId: string; botId: number; updateId: number };
type Reply = { chatId: number; text: string };

export async function processUpdate(app: AppContext, job: UpdateJob): Promise<void> {
  const replies = await app.db.transaction(async (tx) => {
    const row = await lockUpdate(tx, job.workspaceId, job.botId, job.updateId);
    if (!row || row.processed_at) return [];
    const update = Update.safeParse(row.body);
    // Kinds we did not ask for, or shapes we do not read, are kept as received and done with.
    const replies = update.success ? await handleUpdate(tx, app.effects.contacts, job, update.data) : [];
    await markUpdateProcessed(tx, job.workspaceId, job.botId, job.updateId);
    return replies;
  });
  for (const reply of replies) {
    await sendTelegramText(app, job.workspaceId, reply.chatId, reply.text).catch((error: unknown) =>
      app.log.warn({ workspaceId: job.workspaceId, err: String(error) }, 'telegram reply not sent'),
    );
  }
}

async function handleUpdate(
  tx: Tx,
  effects: ContactEffects,
  job: UpdateJob,
  update: z.infer<typeof Update>,
): Promise<Reply[]> {
  if (update.my_chat_member) {
    await memberChanged(tx, job.workspaceId, update.my_chat_member);
    return [];
  }
  const message = update.message;
  if (message?.text === undefined) return [];
  const chatId = message.chat.id;
  let contactId = await findChatContact(tx, job.workspaceId, chatId);
  const payload = startPayload(message.text);
  let reply: string | null = null;
  if (payload !== null) {
    const linkedTo = payload ? await redeemLinkToken(tx, job.workspaceId, payload) : null;
    if (linkedTo) contactId = await linkToContact(tx, effects, job.workspaceId, chatId, linkedTo, contactId);
    reply = linkedTo ? REPLIES.linked : REPLIES.instructions;
  }
  // The start payload is a secret (a used token, but still): the event keeps the command alone.
  const text = payload === null ? message.text : '/start';
  const contact = await ingestMessage(tx, effects, job, message, text, contactId);
  if (!contactId && contact) await linkChat(tx, job.workspaceId, chatId, contact);
  return reply ? [{ chatId, text: reply }] : [];
}

/** The stored event; returns its contact (made anonymous for an unlinked chat). */
async function ingestMessage(
  tx: Tx,
  effects: ContactEffects,
  job: UpdateJob,
  message: Message,
  text: string,
  contactId: string | null,
) {
  const chatId = message.chat.id;
  const [result] = await ingestEvents(
    tx,
    effects,
    job.workspaceId,
    [
      {
        type: 'telegram.message_received',
        ...(contactId ? { contactId } : { anonymousId: telegramAnonymousId(chatId) }),
        metadata: { text, chatId, messageId: message.message_id },
        idempotencyKey: `telegram:${job.botId}:${job.updateId}`,
      },
    ],
    { source: 'webhook' },
  );
  return result.event.contact?.id ?? null;
}

/**
 * Links the chat to the token's contact. An anonymous contact the chat made before (it wrote while
 * unlinked) is the same person: it is merged into the known one, its messages and events with it.
 */
async function linkToContact(
  tx: Tx,
  effects: ContactEffects,
  workspaceId: string,
  chatId: number,
  contactId: string,
  previous: string | null,
) {
  await linkChat(tx, workspaceId, chatId, contactId);
  if (previous && previous !== contactId) {
    const rows = await findAndLockContacts(tx, workspaceId, {
      ids: [contactId, previous],
      emails: [],
      anonymousIds: [],
    });
    const known = rows.find((row) => row.id === contactId);
    const anonymous = rows.find((row) => row.id === previous);
    if (
      known &&
      anonymous &&
      anonymous.email === null &&
      anonymous.anonymous_id === telegramAnonymousId(chatId)
    ) {
      await mergeContactRows(tx, effects, known, anonymous);
    }
  }
  // Pressing START in the bot is asking for its messages, even after blocking it once.
  await putSubscriptions(tx, workspaceId, contactId, [{ channel: 'telegram', status: 'subscribed' }]);
  return contactId;
}

async function memberChanged(tx: Tx, workspaceId: string, change: z.infer<typeof ChatMemberUpdate>) {
  if (change.new_chat_member.status !== 'kicked') return;
  const contactId = await findChatContact(tx, workspaceId, change.chat.id);
  if (contactId) await unsubscribeContact(tx, workspaceId, contactId, 'telegram', 'provider', null);
}
