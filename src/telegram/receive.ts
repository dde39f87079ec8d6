// The bot's webhook: Telegram posts each update with our secret in X-Telegram-Bot-Api-Secret-Token.
// It is checked in constant time, the update is stored once (keyed by bot and update_id: Telegram
// redelivers until it gets a 2xx) with its processing job in the same transaction, and the answer
// is immediate. Nothing here trusts the body before the secret matched.
import { findChannelConfig, isTelegramWebhookSecret, type TelegramSettings } from '../channels/index.ts';
import type { AppContext } from '../core/context.ts';
import { UnauthorizedError, ValidationError } from '../core/errors.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { transactionalDb } from '../jobs/boss.ts';
import { insertUpdate } from './queries.ts';
import { UpdateEnvelope } from './schemas.ts';

export const UPDATE_QUEUE = 'telegram.update';

export async function receiveUpdate(
  app: AppContext,
  workspaceId: string,
  secretHeader: string | undefined,
  body: unknown,
): Promise<{ received: true; duplicate: boolean }> {
  const channel = await findChannelConfig(app.db, workspaceId, 'telegram');
  // One answer for "no such channel" and "wrong secret": the path reveals nothing.
  if (!channel || !isTelegramWebhookSecret(channel, secretHeader)) {
    throw new UnauthorizedError('Send the webhook secret in X-Telegram-Bot-Api-Secret-Token.');
  }
  const parsed = UpdateEnvelope.safeParse(body);
  if (!parsed.success) throw new ValidationError(zodIssuesToFieldErrors(parsed.error.issues, 'body'));
  const { botId } = channel.settings as TelegramSettings;
  const updateId = parsed.data.update_id;
  return app.db.transaction(async (tx) => {
    const stored = await insertUpdate(tx, { workspaceId, botId, updateId, body: parsed.data });
    if (stored) {
      await app.boss.send(UPDATE_QUEUE, { workspaceId, botId, updateId }, { db: transactionalDb(tx) });
    }
    return { received: true as const, duplicate: !stored };
  });
}
