// A local fake of the Telegram Bot API (`POST /bot<token>/<method>`), started once per run by the
// root hooks and given to the service as TELEGRAM_API_ROOT. It answers with Telegram's real
// envelopes, errors included: {ok: false, error_code, description, parameters?}. Chats with the
// ids below always fail the way their names say; `rateLimitNext` makes a chat's next send a 429.
import type { AddressInfo } from 'node:net';
import express from 'express';

export const BLOCKED_CHAT = 403_001;
export const DEACTIVATED_CHAT = 403_002;
export const MISSING_CHAT = 400_001;

export type Bot = { id: number; username: string; first_name: string };
export type SentMessage = { token: string; chat_id: number; text: string; parse_mode?: string; at: number };
export type Webhook = { url: string; secret_token?: string; allowed_updates?: string[] };

type Answer = { status: number; body: unknown };

const ok = (result: unknown): Answer => ({ status: 200, body: { ok: true, result } });
const fail = (status: number, description: string, parameters?: object): Answer => ({
  status,
  body: { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) },
});

export class FakeBotApi {
  readonly bots = new Map<string, Bot>();
  readonly webhooks = new Map<string, Webhook>();
  readonly sent: SentMessage[] = [];
  /** chat id → retry_after seconds of the 429 its next send gets. */
  readonly rateLimited = new Map<number, number>();
  url = '';
  private nextBotId = 7_000_000_000;
  private nextMessageId = 1;
  private close: () => Promise<void> = async () => {};

  /** A bot this fake knows, with a token in @BotFather's format. */
  addBot(): { token: string; bot: Bot } {
    const id = this.nextBotId++;
    const token = `${id}:AAF${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
    const bot = { id, username: `acme${id}_bot`, first_name: 'Acme' };
    this.bots.set(token, bot);
    return { token, bot };
  }

  rateLimitNext(chatId: number, retryAfterSeconds: number) {
    this.rateLimited.set(chatId, retryAfterSeconds);
  }

  sentTo(chatId: number): SentMessage[] {
    return this.sent.filter((message) => message.chat_id === chatId);
  }

  answer(token: string, method: string, body: Record<string, unknown>): Answer {
    if (!this.bots.has(token)) return fail(401, 'Unauthorized');
    if (method === 'getMe') return ok({ ...this.bots.get(token), is_bot: true });
    if (method === 'setWebhook') {
      this.webhooks.set(token, body as Webhook);
      return ok(true);
    }
    if (method === 'deleteWebhook') {
      this.webhooks.delete(token);
      return ok(true);
    }
    if (method === 'sendMessage') return this.sendMessage(token, body);
    return fail(404, 'Not Found');
  }

  private sendMessage(token: string, body: Record<string, unknown>): Answer {
    const chatId = Number(body.chat_id);
    if (chatId === BLOCKED_CHAT) return fail(403, 'Forbidden: bot was blocked by the user');
    if (chatId === DEACTIVATED_CHAT) return fail(403, 'Forbidden: user is deactivated');
    if (chatId === MISSING_CHAT) return fail(400, 'Bad Request: chat not found');
    const retryAfter = this.rateLimited.get(chatId);
    if (retryAfter !== undefined) {
      this.rateLimited.delete(chatId);
      return fail(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
    }
    const text = String(body.text ?? '');
    const parseMode = body.parse_mode as string | undefined;
    this.sent.push({
      token,
      chat_id: chatId,
      text,
      ...(parseMode ? { parse_mode: parseMode } : {}),
      at: Date.now(),
    });
    return ok({
      message_id: this.nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chatId, type: 'private' },
      text,
    });
  }

  async start(): Promise<void> {
    const app = express();
    app.use(express.json());
    app.post('/bot:token/:method', (req, res) => {
      const { status, body } = this.answer(req.params.token, req.params.method, req.body ?? {});
      res.status(status).json(body);
    });
    const listener = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listener.once('listening', resolve));
    this.url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    this.close = () => new Promise((resolve) => listener.close(() => resolve()));
  }

  stop(): Promise<void> {
    return this.close();
  }
}

let running: FakeBotApi | undefined;

export function fakeBotApi(): FakeBotApi {
  if (!running) throw new Error('the fake Bot API is not running (root hooks not loaded?)');
  return running;
}

/** Starts the run's fake; the service reads its address from TELEGRAM_API_ROOT. */
export async function startFakeBotApi(): Promise<FakeBotApi> {
  running = new FakeBotApi();
  await running.start();
  process.env.TELEGRAM_API_ROOT = running.url;
  return running;
}

export async function stopFakeBotApi(): Promise<void> {
  await running?.stop();
  running = undefined;
}
