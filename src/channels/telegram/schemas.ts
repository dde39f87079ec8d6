// Request and response shapes of a workspace's Telegram channel. The bot token goes in and never
// comes out (`tokenSet`); the webhook secret is never shown at all.
import { z } from 'zod';
import '../../core/zodOpenApi.ts';
import { Timestamp } from '../../http/validation.ts';

export const PutTelegramConfigBody = z
  .object({
    botToken: z
      .string()
      .trim()
      .max(200, 'must be at most 200 characters')
      .regex(
        /^\d{1,20}:[A-Za-z0-9_-]{20,150}$/,
        'must be a bot token as @BotFather gives it: <bot id>:<secret>',
      )
      .openapi({ example: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw' }),
  })
  .openapi('TelegramChannelInput');
export type PutTelegramConfigBody = z.infer<typeof PutTelegramConfigBody>;

export const TelegramConfigSchema = z
  .object({
    channel: z.literal('telegram'),
    botId: z.number().int(),
    botUsername: z
      .string()
      .openapi({ description: 'The bot’s @username, without the @: links are https://t.me/<botUsername>.' }),
    botName: z.string(),
    webhookUrl: z.string().openapi({
      description: 'Where Telegram posts the bot’s updates (PUBLIC_URL + a per-workspace path).',
    }),
    tokenSet: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('TelegramChannel', {
    example: {
      channel: 'telegram',
      botId: 123456789,
      botUsername: 'acme_bot',
      botName: 'Acme',
      webhookUrl: 'https://switchboard.example.com/api/telegram/updates/ws_01J…',
      tokenSet: true,
      createdAt: '2025-01-01T12:00:00.000Z',
      updatedAt: '2025-01-01T12:00:00.000Z',
    },
  });
