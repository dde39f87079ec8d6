// A workspace's Telegram channel: a bot token checked with getMe, the bot's webhook pointed at our
// per-workspace update URL with a random secret, both secrets sealed at rest. Saving calls
// Telegram first and stores after, so a token Telegram refuses is never stored; an update that
// arrives between the two is refused (401) and Telegram delivers it again.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../core/context.ts';
import { AppError, NotFoundError, ValidationError } from '../../core/errors.ts';
import type { Db } from '../../db/pool.ts';
import { decryptSecret, encryptSecret, SecretDecryptionError } from '../../secrets/index.ts';
import { removeChannelConfig, saveChannelConfig } from '../configChanges.ts';
import { type ChannelConfigRow, findChannelConfig } from '../queries.ts';
import { channelSecretContext } from '../secretStore.ts';
import { botApi, describeTelegramError, GrammyError } from './api.ts';

export type TelegramSettings = {
  botId: number;
  botUsername: string;
  botName: string;
  webhookUrl: string;
};

/** Where Telegram posts a workspace's updates (served by the telegram feature). */
export const TELEGRAM_WEBHOOK_PATH = '/api/telegram/updates/{workspaceId}';

/** The updates the bot's webhook asks for: text messages and the bot's own membership (blocked). */
const ALLOWED_UPDATES = ['message', 'my_chat_member'] as const;

const secretContext = (workspaceId: string, name: string) =>
  channelSecretContext(workspaceId, 'telegram', name);

export function telegramWebhookUrl(config: Config, workspaceId: string): string {
  const base = (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, '');
  return `${base}${TELEGRAM_WEBHOOK_PATH.replace('{workspaceId}', workspaceId)}`;
}

export const noTelegramChannel = () =>
  new NotFoundError('The Telegram channel', 'This workspace has no Telegram channel configured.');

/** Telegram could not be reached, or refused a call a valid token should pass: a 502 naming it. */
function telegramFailed(step: string, error: unknown): AppError {
  const detail =
    error instanceof GrammyError ? describeTelegramError(error) : 'the Telegram Bot API did not answer';
  return new AppError(502, 'telegram-failed', 'Telegram failed', `Telegram's ${step} failed: ${detail}`);
}

/** The bot behind a token; a token Telegram does not know is the caller's mistake (400). */
async function identifyBot(config: Config, token: string) {
  try {
    return await botApi(config, token).getMe();
  } catch (error) {
    if (error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404)) {
      throw new ValidationError([
        {
          path: 'body.botToken',
          message: `Telegram does not accept this token (${describeTelegramError(error)})`,
        },
      ]);
    }
    throw telegramFailed('getMe', error);
  }
}

export async function putTelegramConfig(app: AppContext, workspaceId: string, botToken: string) {
  const bot = await identifyBot(app.config, botToken);
  const webhookUrl = telegramWebhookUrl(app.config, workspaceId);
  // 32 random bytes in base64url: 43 characters of the A-Z a-z 0-9 _ - Telegram allows.
  const webhookSecret = randomBytes(32).toString('base64url');
  try {
    await botApi(app.config, botToken).setWebhook(webhookUrl, {
      secret_token: webhookSecret,
      allowed_updates: [...ALLOWED_UPDATES],
    });
  } catch (error) {
    throw telegramFailed('setWebhook', error);
  }
  const previous = await findChannelConfig(app.db, workspaceId, 'telegram');
  const settings: TelegramSettings = {
    botId: bot.id,
    botUsername: bot.username,
    botName: bot.first_name,
    webhookUrl,
  };
  const row = await saveChannelConfig(app.db, {
    workspaceId,
    channel: 'telegram',
    settings,
    secrets: {
      botToken: encryptSecret(botToken, secretContext(workspaceId, 'botToken')),
      webhookSecret: encryptSecret(webhookSecret, secretContext(workspaceId, 'webhookSecret')),
    },
  });
  if (previous && (previous.settings as TelegramSettings).botId !== bot.id) {
    // Another bot took over: the old one should stop posting here (best effort: it may be gone).
    await removeWebhook(app.config, previous).catch((error: unknown) =>
      app.log.warn({ workspaceId, err: String(error) }, 'could not remove the previous bot’s webhook'),
    );
  }
  return row;
}

/** The API's view: never the token or the webhook secret. */
export function toTelegramConfig(row: ChannelConfigRow) {
  const settings = row.settings as TelegramSettings;
  return {
    channel: 'telegram' as const,
    ...settings,
    tokenSet: row.secrets.botToken !== undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function getTelegramConfigRow(db: Db, workspaceId: string): Promise<ChannelConfigRow> {
  const row = await findChannelConfig(db, workspaceId, 'telegram');
  if (!row) throw noTelegramChannel();
  return row;
}

export function openBotToken(row: ChannelConfigRow): string {
  const sealed = row.secrets.botToken;
  if (!sealed) throw new SecretDecryptionError('no bot token is stored');
  return decryptSecret(sealed, secretContext(row.workspace_id, 'botToken'));
}

async function removeWebhook(config: Config, row: ChannelConfigRow) {
  await botApi(config, openBotToken(row)).deleteWebhook();
}

/**
 * Removes the bot's webhook, then the configuration. A token Telegram no longer accepts (revoked)
 * or secrets we cannot open do not keep the channel alive; Telegram being unreachable does (502,
 * so the caller can try again rather than leave a webhook pointing here).
 */
export async function deleteTelegramConfig(app: AppContext, workspaceId: string) {
  const row = await getTelegramConfigRow(app.db, workspaceId);
  try {
    await removeWebhook(app.config, row);
  } catch (error) {
    const tokenGone =
      error instanceof SecretDecryptionError ||
      (error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404));
    if (!tokenGone) throw telegramFailed('deleteWebhook', error);
  }
  if (!(await removeChannelConfig(app.db, workspaceId, 'telegram'))) throw noTelegramChannel();
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Whether `given` is the workspace's webhook secret. Compared as SHA-256 digests (equal length)
 * with timingSafeEqual, so the time taken says nothing about how much of it matched.
 */
export function isTelegramWebhookSecret(row: ChannelConfigRow, given: string | undefined): boolean {
  const sealed = row.secrets.webhookSecret;
  if (!sealed || given === undefined) return false;
  let secret: string;
  try {
    secret = decryptSecret(sealed, secretContext(row.workspace_id, 'webhookSecret'));
  } catch (error) {
    if (error instanceof SecretDecryptionError) return false;
    throw error;
  }
  return timingSafeEqual(digest(secret), digest(given));
}
