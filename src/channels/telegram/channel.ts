// The Telegram channel behind the Channel interface: sendMessage through the workspace's bot, its
// answer classified (api.ts). Clients are kept per workspace and rebuilt when the configuration
// changes (a PUT or a DELETE and PUT, in any process: the row's updated_at moves), so the token is
// decrypted once per configuration, not per send.
import type { Api } from 'grammy';
import { z } from 'zod';
import type { AppContext } from '../../core/context.ts';
import { type ChannelConfigRow, findChannelConfig } from '../queries.ts';
import { RequiredText } from '../stepFields.ts';
import type { BuildKit, ChannelDefinition, SendOutcome, TelegramMessage } from '../types.ts';
import { botApi, classifyTelegramError } from './api.ts';
import { telegramChannelRoutes } from './routes.ts';
import { openBotToken } from './service.ts';
import { telegramSettings } from './settings.ts';

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

const PARSE_MODES = ['HTML', 'MarkdownV2'] as const;

const TelegramStep = z.strictObject({
  type: z.literal('send'),
  channel: z.literal('telegram'),
  text: RequiredText(4096),
  parseMode: z.enum(PARSE_MODES).optional(),
});

const RenderedTelegram = z
  .object({
    channel: z.literal('telegram'),
    text: z.string(),
    parseMode: z
      .enum(PARSE_MODES)
      .optional()
      .openapi({ description: "The step's parse mode; absent for plain text." }),
  })
  .openapi('RenderedTelegram');

/** The step's text; with parse mode HTML the contact's values are escaped like an email's HTML. */
function buildTelegram(kit: BuildKit) {
  const { template } = kit.message;
  const parseMode = template.parseMode ?? undefined;
  const text = kit.text('text', template.text ?? template.html ?? '', parseMode === 'HTML' ? 'html' : 'text');
  const outgoing: TelegramMessage = {
    channel: 'telegram',
    id: kit.message.id,
    chatId: kit.context.telegram_chat_id ?? 0,
    text,
    parseMode,
  };
  return { outgoing, rendered: { channel: 'telegram' as const, text, ...(parseMode ? { parseMode } : {}) } };
}

export const telegramChannel: ChannelDefinition<
  TelegramMessage,
  typeof TelegramStep,
  typeof RenderedTelegram
> = {
  name: 'telegram',
  title: 'Telegram',
  isConfigured: async (app, workspaceId) =>
    (await findChannelConfig(app.db, workspaceId, 'telegram')) !== null,
  send: sendTelegram,
  close: async (workspaceId) => {
    if (workspaceId === undefined) clients.clear();
    else clients.delete(workspaceId);
  },
  step: TelegramStep,
  templateOf: (step) => ({
    subject: '',
    html: step.text,
    text: step.text,
    ...(step.parseMode ? { parseMode: step.parseMode } : {}),
  }),
  templateFields: (step) => [['text', 'text', step.text]],
  rendered: RenderedTelegram,
  subjectOf: () => null,
  addressOf: (context) => (context.telegram_chat_id === null ? undefined : String(context.telegram_chat_id)),
  unreachable: (context) =>
    context.telegram_chat_id === null ? 'the contact has no linked Telegram chat' : null,
  build: buildTelegram,
  // Telegram's broadcast guidance is about 30 messages a second per bot (beyond that, 429s); 25
  // leaves room for the bot's replies to /start. A workspace with paid broadcasts sets its own.
  defaultRatePerSecond: 25,
  unsubscribeEvent: { contactId: z.string(), channel: z.string().openapi({ example: 'telegram' }) },
  settings: telegramSettings,
  routes: telegramChannelRoutes,
};
