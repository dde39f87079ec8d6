// SQL of the telegram feature: received updates, the chats linked to contacts, and the one-time
// link tokens. Every query filters by workspace first. The exception is pruning, which sweeps
// every workspace's old rows by time alone.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

const UpdateRow = z.object({
  body: z.record(z.string(), z.unknown()),
  processed_at: z.string().nullable(),
});

/** Stores an update once: false when this bot's update id was already received (a redelivery). */
export async function insertUpdate(
  db: Db,
  update: { workspaceId: string; botId: number; updateId: number; body: Record<string, unknown> },
): Promise<boolean> {
  const inserted = await db.maybeOne(sql.type(z.object({ update_id: z.number() }))`
    insert into telegram_updates (workspace_id, bot_id, update_id, body)
    values (${update.workspaceId}, ${update.botId}, ${update.updateId}, ${sql.jsonb(update.body as never)})
    on conflict (workspace_id, bot_id, update_id) do nothing
    returning update_id
  `);
  return inserted !== null;
}

/** The update, locked for its processing transaction (a second job for it waits, then sees it done). */
export async function lockUpdate(db: Db, workspaceId: string, botId: number, updateId: number) {
  return db.maybeOne(sql.type(UpdateRow)`
    select body, processed_at from telegram_updates
    where workspace_id = ${workspaceId} and bot_id = ${botId} and update_id = ${updateId}
    for update
  `);
}

export async function markUpdateProcessed(db: Db, workspaceId: string, botId: number, updateId: number) {
  await db.query(sql.typeAlias('void')`
    update telegram_updates set processed_at = now()
    where workspace_id = ${workspaceId} and bot_id = ${botId} and update_id = ${updateId}
  `);
}

/** The contact a chat is linked to, or null. */
export async function findChatContact(db: Db, workspaceId: string, chatId: number): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ contact_id: z.string() }))`
    select contact_id from telegram_chats where workspace_id = ${workspaceId} and chat_id = ${chatId}
  `);
}

/** Links the chat to the contact (moving it from any other contact): sends now go to this chat. */
export async function linkChat(db: Db, workspaceId: string, chatId: number, contactId: string) {
  await db.query(sql.typeAlias('void')`
    insert into telegram_chats (workspace_id, chat_id, contact_id) values (${workspaceId}, ${chatId}, ${contactId})
    on conflict (workspace_id, chat_id) do update set contact_id = excluded.contact_id, linked_at = now()
  `);
}

export async function insertLinkToken(
  db: Db,
  token: { workspaceId: string; tokenHash: string; contactId: string; expiresAt: Date },
) {
  await db.query(sql.typeAlias('void')`
    insert into telegram_link_tokens (workspace_id, token_hash, contact_id, expires_at)
    values (${token.workspaceId}, ${token.tokenHash}, ${token.contactId}, ${token.expiresAt.toISOString()})
  `);
}

/** Uses up a token: the contact it was made for, or null when it is unknown, used or expired. */
export async function consumeLinkToken(
  db: Db,
  workspaceId: string,
  tokenHash: string,
): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ contact_id: z.string() }))`
    delete from telegram_link_tokens
    where workspace_id = ${workspaceId} and token_hash = ${tokenHash} and expires_at > now()
    returning contact_id
  `);
}

/** Drops processed updates received before `updatesBefore`, and expired link tokens; returns the counts. */
export async function pruneTelegramRows(db: Db, updatesBefore: Date) {
  const updates = await db.query(sql.typeAlias('void')`
    delete from telegram_updates where received_at < ${updatesBefore.toISOString()} and processed_at is not null
  `);
  const tokens = await db.query(sql.typeAlias('void')`
    delete from telegram_link_tokens where expires_at < now()
  `);
  return { updates: updates.rowCount, tokens: tokens.rowCount };
}
