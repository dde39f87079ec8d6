// The boundary every channel module sits behind (email, Telegram; web push next). The
// flow engine and transactional sends build an OutgoingMessage, call `send`, and record the
// outcome; a channel never writes message rows or emits webhooks itself.
import type { AppContext } from '../http/context.ts';

/** Where an SMTP exchange failed ('config': before any connection, e.g. no channel configured). */
export type SendStage = 'config' | 'connect' | 'tls' | 'auth' | 'mail-from' | 'rcpt-to' | 'data';

export type EmailMessage = {
  channel: 'email';
  /** Our message id: sent as X-Switchboard-Message-Id and as the local part of Message-ID. */
  id: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
  /**
   * RFC 8058 one-click unsubscribe: `url` (https) becomes List-Unsubscribe with `mailto` beside it
   * when given, plus List-Unsubscribe-Post. Both headers are covered by the DKIM signature. Without
   * `mailto`, the channel's `unsubscribeMailto` setting makes one from `token`.
   */
  unsubscribe?: { url: string; mailto?: string; token?: string };
};

export type TelegramMessage = {
  channel: 'telegram';
  /** Our message id (for logs; Telegram has no place for it). */
  id: string;
  /** The contact's linked chat. */
  chatId: number;
  text: string;
  parseMode?: 'HTML' | 'MarkdownV2';
};

/** One variant per channel; push adds its own. */
export type OutgoingMessage = EmailMessage | TelegramMessage;

export type SendFailure = {
  /**
   * retry: try again later (4xx, network); permanent: will not work as configured (other 5xx,
   * authentication, TLS, channel missing); bounce: the address does not exist (5xx at RCPT TO);
   * unsubscribe: the recipient is gone for this channel (push subscription expired, bot blocked).
   */
  status: 'retry' | 'permanent' | 'bounce' | 'unsubscribe';
  error: string;
  stage?: SendStage;
  /** A retry the provider asked to be made no sooner than this (Telegram's `retry_after`). */
  retryAfterMs?: number;
};

export type SendOutcome = { status: 'sent'; providerId: string; response: string } | SendFailure;

export interface Channel<M extends OutgoingMessage = OutgoingMessage> {
  readonly name: M['channel'];
  /** Whether the workspace has configured this channel. */
  isConfigured(app: AppContext, workspaceId: string): Promise<boolean>;
  /** Sends one message; never throws for a provider's answer, only classifies it. */
  send(app: AppContext, workspaceId: string, message: M): Promise<SendOutcome>;
  /** Releases what the channel holds for the workspace (pooled connections), or for all. */
  close(workspaceId?: string): Promise<void>;
}
