// The Telegram channel behind the Channel interface: sendMessage through the workspace's bot, its
// answer classified (api.ts). Clients are kept per workspace and rebuilt when the configuration
// changes (a PUT or a DELETE and PUT, in any process: the row's updated_at moves), so the token is
// decrypted once per configuration, not per send.
import type { Api } from 'grammy';
import type { AppContext } from '../../core/context.ts';
import { type ChannelConfigRow, findChannelConfig } from '../queries.ts';
import type { Channel, SendOutcome, TelegramMessage } from '../types.ts';
import { botApi, classifyTelegramError } from './api.ts';
import { openBotToken } from './service.ts';

const clients = new Map<string, { stamp: string; api: Api }>();

function clientFor(app: AppContext, row: ChannelConfigRow): Api {
  const cached = clients.get(row.workspace_id);
  const stamp = `${row.version}:${row.updated_at}:${app.config.TELEGRAM_API_ROOT}`;
  if (cached?.stamp === stamp) return cached.api;
  const api = botApi(app.config, openBotToken(row));
  clients.set(row.workspace_id, { stamp, api });
  return api;
}

/** Sends a text to a chat with the workspace's bot; throws what grammY threw. Null: no channel. */
export async function sendTelegramText(
  app: AppContext,
  workspaceId: string,
  chatId: number,
  text: string,
  parseMode?: TelegramMessage['parseMode'],
) {
  const row = await findChannelConfig(app.db, workspaceId, 'telegram');
  if (!row) return null;
  return clientFor(app, row).sendMessage(chatId, text, parseMode ? { parse_mode: parseMode } : {});
}

async function sendTelegram(
  app: AppContext,
  workspaceId: string,
  message: TelegramMessage,
): Promise<SendOutcome> {
  try {
    const sent = await sendTelegramText(app, workspaceId, message.chatId, message.text, message.parseMode);
    if (!sent) return { status: 'permanent', stage: 'config', error: 'channel not configured' };
    return {
      status: 'sent',
      providerId: String(sent.message_id),
      response: `message ${sent.message_id} in chat ${sent.chat.id}`,
    };
  } catch (error) {
    const failure = classifyTelegramError(error);
    app.log.warn({ workspaceId, messageId: message.id, status: failure.status }, 'telegram message not sent');
    return failure;
  }
}

export const telegramChannel: Channel<TelegramMessage> = {
  name: 'telegram',
  isConfigured: async (app, workspaceId) =>
    (await findChannelConfig(app.db, workspaceId, 'telegram')) !== null,
  send: sendTelegram,
  close: async (workspaceId) => {
    if (workspaceId === undefined) clients.clear();
    else clients.delete(workspaceId);
  },
};
