// The boundary every channel module sits behind (email, Telegram; web push next). The
// flow engine and transactional sends build an OutgoingMessage, call `send`, and record the
// outcome; a channel never writes message rows or emits webhooks itself.
import type { AppContext } from '../core/context.ts';

/** Where an SMTP exchange failed ('config': before any connection, e.g. no channel configured). */
export type SendStage = 'config' | 'connect' | 'tls' | 'auth' | 'mail-from' | 'rcpt-to' | 'data';

export type EmailMessage = {
  channel: 'email';
  /** Our message id: sent as X-Switchboard-Message-ID and as the local part of Message-ID. */
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

/** What the service worker (/sdk/sw.js) receives, as JSON encrypted to each subscription. */
export type PushNotification = {
  title: string;
  body: string;
  /** Opened on click. */
  url?: string;
  icon?: string;
  /** Where the service worker acknowledges delivery and clicks, with `ackToken` (signed, per message). */
  ackUrl: string;
  ackToken: string;
};

export type PushUrgency = 'very-low' | 'low' | 'normal' | 'high';

/** A notification to every browser the contact has subscribed to push from. */
export type PushMessage = {
  channel: 'push';
  /** Our message id, also in the payload (`messageId`). */
  id: string;
  contactId: string;
  notification: PushNotification;
  /** How long the push service keeps it for a browser that is offline. */
  ttlSeconds: number;
  urgency: PushUrgency;
  /** A newer message with the same topic replaces an undelivered older one (≤ 32 base64url characters). */
  topic?: string;
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

/** One variant per channel. */
export type OutgoingMessage = EmailMessage | PushMessage | TelegramMessage;

export type SendFailure = {
  /**
   * retry: try again later (4xx, network); permanent: will not work as configured (other 5xx,
   * authentication, TLS, channel missing); bounce: the address does not exist (5xx at RCPT TO);
   * unsubscribe: the recipient is gone for this channel (push subscription expired, bot blocked);
   * unconfigured: this process lacks the key that sealed the channel's secrets (MissingKeyError),
   * the process's fault, not the message's: retried without spending one of its attempts.
   */
  status: 'retry' | 'permanent' | 'bounce' | 'unsubscribe' | 'unconfigured';
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
