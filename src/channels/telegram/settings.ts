// The Telegram channel's configuration form in the console: the bot token (checked with Telegram,
// which is then told where to post updates), write-only; the bot and the updates webhook shown.
import { parseForm } from '../../console/index.ts';
import { findChannelConfig } from '../queries.ts';
import type { ChannelSettings } from '../types.ts';
import { PutTelegramConfigBody } from './schemas.ts';
import { putTelegramConfig, toTelegramConfig } from './service.ts';

export const telegramSettings: ChannelSettings = {
  intro: 'Messages go through your bot: give its token from @BotFather. Saving checks it with Telegram.',
  fields: [{ name: 'botToken', label: 'Bot token', kind: 'secret', required: true, hint: 'from @BotFather' }],
  async load(app, workspaceId) {
    const row = await findChannelConfig(app.db, workspaceId, 'telegram');
    const telegram = row ? toTelegramConfig(row) : null;
    return {
      configured: telegram !== null,
      values: {},
      secretsSet: { botToken: telegram?.tokenSet ?? false },
      facts: telegram
        ? [
            { label: 'Bot', value: `@${telegram.botUsername} (${telegram.botName})` },
            { label: 'Updates webhook', value: telegram.webhookUrl, copy: true },
          ]
        : [],
    };
  },
  async save(app, workspaceId, input) {
    const { botToken } = parseForm(PutTelegramConfigBody, { botToken: input.secret('botToken') });
    const row = await putTelegramConfig(app, workspaceId, botToken);
    return `Telegram channel saved: @${toTelegramConfig(row).botUsername}.`;
  },
};
