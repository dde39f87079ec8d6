// Linking a Telegram chat to a known contact with a deep link, as Telegram recommends: the
// workspace shows the contact https://t.me/<bot>?start=<token>; pressing START sends the bot
// `/start <token>`, and the update's chat is linked to the token's contact. The token is 24 random
// bytes (32 base64url characters, inside the 64 of A-Z a-z 0-9 _ - a start payload may hold);
// only its SHA-256 is stored, and using it deletes it.
import { createHash, randomBytes } from 'node:crypto';
import { findChannelConfig, type TelegramSettings } from '../channels/index.ts';
import { getContact } from '../contacts/index.ts';
import type { AppContext } from '../core/context.ts';
import { ConflictError } from '../core/errors.ts';
import type { Db } from '../db/pool.ts';
import { consumeLinkToken, insertLinkToken } from './queries.ts';

export const hashLinkToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A start payload that can be one of our tokens (anything else is not looked up). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32}$/;

export async function createTelegramLink(app: AppContext, workspaceId: string, contactId: string) {
  const channel = await findChannelConfig(app.db, workspaceId, 'telegram');
  if (!channel) {
    throw new ConflictError(
      'This workspace has no Telegram channel: PUT …/channels/telegram with a bot token first.',
      'channel-not-configured',
    );
  }
  await getContact(app.db, workspaceId, contactId);
  const token = randomBytes(24).toString('base64url');
  const expiresAt = new Date(Date.now() + app.config.TELEGRAM_LINK_TTL_MS);
  await insertLinkToken(app.db, { workspaceId, tokenHash: hashLinkToken(token), contactId, expiresAt });
  const { botUsername } = channel.settings as TelegramSettings;
  return { url: `https://t.me/${botUsername}?start=${token}`, expiresAt: expiresAt.toISOString() };
}

/** The contact a /start payload links to, using the token up; null for anything else. */
export async function redeemLinkToken(db: Db, workspaceId: string, payload: string): Promise<string | null> {
  if (!TOKEN_SHAPE.test(payload)) return null;
  return consumeLinkToken(db, workspaceId, hashLinkToken(payload));
}
