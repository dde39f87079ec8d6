// Shapes of the telegram feature's routes: the updates Telegram posts, and the link for a contact.
import { z } from 'zod';
import '../core/zodOpenApi.ts';
import { Timestamp } from '../http/validation.ts';

export const UpdateParams = z.object({ workspaceId: z.string().min(1).max(100) });

/** What the webhook needs of an update before storing it; the worker reads the rest. */
export const UpdateEnvelope = z
  .looseObject({
    update_id: z
      .number()
      .int()
      .nonnegative()
      .max(Number.MAX_SAFE_INTEGER)
      .openapi({ description: 'Telegram’s id of the update; a repeated one is acknowledged and ignored.' }),
  })
  .openapi('TelegramUpdate', {
    description: 'A Telegram Bot API Update object, as Telegram posts it.',
    example: {
      update_id: 10001,
      message: { message_id: 7, date: 1735732800, chat: { id: 4242, type: 'private' }, text: 'hello' },
    },
  });

export const UpdateReceived = z
  .object({
    received: z.literal(true),
    duplicate: z.boolean().openapi({ description: 'The update id was received before: nothing was stored.' }),
  })
  .openapi('TelegramUpdateReceived');

export const TelegramLinkSchema = z
  .object({
    url: z.string().openapi({
      description: 'https://t.me/<bot>?start=<token>: opening it and pressing START links the chat.',
    }),
    expiresAt: Timestamp,
  })
  .openapi('TelegramLink', {
    example: {
      url: 'https://t.me/acme_bot?start=q9V2c1mYb0yJ3xk7Qm4wT8sZp6nR5aLe',
      expiresAt: '2025-01-02T12:00:00.000Z',
    },
  });
