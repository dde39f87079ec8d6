// The Bot API client (grammY's bare `Api`: no polling, no framework) and what Telegram's answers
// mean for a send. Telegram documents `error_code` as "subject to change", so a refusal is
// classified on the code and the description's wording together.
import { Api, GrammyError, HttpError } from 'grammy';
import type { Config } from '../../config.ts';
import { MissingKeyError, SecretDecryptionError } from '../../secrets/index.ts';
import type { SendFailure } from '../types.ts';

export { GrammyError, HttpError } from 'grammy';

/** A client for one bot token against the configured Bot API root. */
export function botApi(config: Config, token: string): Api {
  return new Api(token, {
    apiRoot: config.TELEGRAM_API_ROOT,
    timeoutSeconds: Math.max(1, Math.ceil(config.TELEGRAM_TIMEOUT_MS / 1000)),
  });
}

/** The recipient left the channel: they blocked the bot, or deleted their account. */
const GONE = /bot was blocked by the user|user is deactivated/i;

/** Telegram's own words, with its code: never the token (grammY's messages leave it out too). */
export function describeTelegramError(error: GrammyError): string {
  return `${error.error_code} ${error.description}`;
}

export function classifyTelegramError(error: unknown): SendFailure {
  if (error instanceof MissingKeyError)
    return { status: 'unconfigured', stage: 'config', error: error.message };
  if (error instanceof SecretDecryptionError)
    return { status: 'permanent', stage: 'config', error: error.message };
  if (error instanceof HttpError)
    return { status: 'retry', stage: 'connect', error: 'the Telegram Bot API did not answer' };
  if (!(error instanceof GrammyError)) throw error;
  const text = describeTelegramError(error);
  if (error.error_code === 429) {
    // Flood control: wait what Telegram says (seconds), then try again. The wait is a delayed
    // job, so no worker sits idle and other chats keep being served.
    const seconds = error.parameters.retry_after ?? 1;
    return { status: 'retry', error: text, retryAfterMs: seconds * 1000 };
  }
  if (error.error_code === 403 && GONE.test(error.description)) return { status: 'unsubscribe', error: text };
  if (error.error_code >= 500) return { status: 'retry', error: text };
  if (error.error_code === 401 || error.error_code === 404)
    return { status: 'permanent', stage: 'config', error: `Telegram refused the bot token (${text})` };
  // 400 "chat not found", 403 "bot can't initiate conversation with a user", a text Telegram
  // cannot parse: none of them gets better by waiting.
  return { status: 'permanent', error: text };
}
