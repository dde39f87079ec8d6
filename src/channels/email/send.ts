// Sending one email through the workspace's pooled transport, and classifying what the SMTP
// server (or the network) answered: a 5xx at RCPT TO is a hard bounce; a 4xx or a broken
// connection is worth retrying; any other 5xx, a refused login or a failed TLS handshake will not
// get better by itself. The error text is the server's reply and the stage: never a credential.
import type { SendMailOptions } from 'nodemailer';
import type { AppContext } from '../../core/context.ts';
import { refusalCause, UnresolvableHostError } from '../../net/ssrf.ts';
import { MissingKeyError, SecretDecryptionError } from '../../secrets/index.ts';
import { type ChannelConfigRow, findChannelConfig } from '../queries.ts';
import type { EmailMessage, SendFailure, SendOutcome, SendStage } from '../types.ts';
import { type FeedbackProvider, listFeedbackProviders } from './feedbackQueries.ts';
import { TOKEN_PLACEHOLDER } from './schemas.ts';
import type { EmailSettings } from './service.ts';
import type { PoolDelivery } from './smtpPool.ts';
import type { ThreadError } from './smtpThread.ts';
import { transportFor } from './transport.ts';

/** What nodemailer's errors carry (smtp-connection sets these; the SMTP thread passes them on). */
type SmtpError = Error & Omit<ThreadError, 'message'>;

export type SmtpFailure = SendFailure & {
  stage: SendStage;
  responseCode?: number;
  /** We refused to dial the host (private address, or it did not resolve). */
  refused?: boolean;
};

export const STAGE_LABELS: Record<SendStage, string> = {
  config: 'configuration',
  connect: 'connect',
  tls: 'TLS',
  auth: 'auth',
  'mail-from': 'MAIL FROM',
  'rcpt-to': 'RCPT TO',
  data: 'DATA',
};

function stageOf(error: SmtpError): SendStage {
  const command = (error.command ?? '').toUpperCase();
  if (command.startsWith('RCPT')) return 'rcpt-to';
  if (command.startsWith('MAIL')) return 'mail-from';
  if (command === 'DATA' || error.code === 'EMESSAGE') return 'data';
  if (command.startsWith('AUTH') || error.code === 'EAUTH') return 'auth';
  if (command === 'STARTTLS' || error.code === 'ETLS') return 'tls';
  return 'connect';
}

export function classifySmtpError(error: unknown): SmtpFailure {
  if (error instanceof MissingKeyError)
    return { status: 'unconfigured', stage: 'config', error: error.message };
  if (error instanceof SecretDecryptionError)
    return { status: 'permanent', stage: 'config', error: error.message };
  const refused = refusalCause(error);
  if (refused) {
    const status = refused instanceof UnresolvableHostError ? 'retry' : 'permanent';
    return { status, stage: 'connect', error: `connect: ${refused.message}`, refused: true };
  }
  const smtp = error as SmtpError;
  const stage = stageOf(smtp);
  const code = smtp.responseCode;
  const text = `${STAGE_LABELS[stage]}: ${smtp.response ?? smtp.message}`;
  const failure = (status: SmtpFailure['status']): SmtpFailure => ({
    status,
    stage,
    error: text,
    responseCode: code,
  });
  if (code !== undefined && code >= 500) return failure(stage === 'rcpt-to' ? 'bounce' : 'permanent');
  if (code !== undefined && code >= 400) return failure('retry');
  // No reply code: a login the server cannot take or a certificate that does not verify is a
  // configuration problem; anything else (refused, reset, timed out) is the network.
  return failure(smtp.code === 'EAUTH' || smtp.code === 'ETLS' ? 'permanent' : 'retry');
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1);

type Headers = Record<string, string | { prepared: boolean; value: string }>;

/** The name our message id goes under where a provider echoes values back in its feedback. */
export const FEEDBACK_MESSAGE_ID = 'switchboard_message_id';

/**
 * Headers each provider turns into values its feedback carries back, so a bounce names our
 * message: SES message tags (configuration-set events), SendGrid unique args (top-level keys of
 * each event), Postmark metadata. Only for the providers the workspace receives feedback from.
 */
function feedbackHeaders(providers: readonly FeedbackProvider[], messageId: string): Headers {
  const headers: Headers = {};
  if (providers.includes('ses')) headers['X-SES-MESSAGE-TAGS'] = `${FEEDBACK_MESSAGE_ID}=${messageId}`;
  if (providers.includes('sendgrid')) {
    // Prepared: SendGrid reads the JSON as written, and nodemailer would MIME-encode its quotes.
    const value = JSON.stringify({ unique_args: { [FEEDBACK_MESSAGE_ID]: messageId } });
    headers['X-SMTPAPI'] = { prepared: true, value };
  }
  if (providers.includes('postmark')) headers[`X-PM-Metadata-${FEEDBACK_MESSAGE_ID}`] = messageId;
  return headers;
}

/** The channel's unsubscribe address as a mailto URL for this message's token, if it has one. */
function mailtoOf(settings: EmailSettings, token: string | undefined): string | undefined {
  if (!settings.unsubscribeMailto || !token) return undefined;
  const address = settings.unsubscribeMailto.replace(TOKEN_PLACEHOLDER, token);
  return `mailto:${address}?subject=${encodeURIComponent(`unsubscribe ${token}`)}`;
}

/**
 * The id the provider gave the message, from its reply to DATA: Postfix, SendGrid and Postmark say
 * "250 … queued as <id>", SES "250 Ok <id>". That id is what their feedback names when it does not
 * echo ours; without one in the reply, our Message-ID stands in.
 */
export function providerMessageId(response: string, messageId: string): string {
  const queued = /\bqueued as\s+<?([^\s<>]+)>?/i.exec(response);
  if (queued) return queued[1];
  const ses = /^250\s+(?:[245]\.\d+\.\d+\s+)?ok\s+([0-9a-f][0-9a-f-]{20,})\s*$/i.exec(response.trim());
  return ses ? ses[1] : messageId;
}

export function mailOptions(
  settings: EmailSettings,
  message: EmailMessage,
  feedbackProviders: readonly FeedbackProvider[] = [],
): SendMailOptions {
  const headers: Headers = {
    'X-Switchboard-Message-ID': message.id,
    ...feedbackHeaders(feedbackProviders, message.id),
  };
  if (message.unsubscribe) {
    const { url } = message.unsubscribe;
    const mailto = message.unsubscribe.mailto ?? mailtoOf(settings, message.unsubscribe.token);
    headers['List-Unsubscribe'] = mailto ? `<${url}>, <${mailto}>` : `<${url}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return {
    from: settings.fromName ? { name: settings.fromName, address: settings.fromEmail } : settings.fromEmail,
    replyTo: settings.replyTo ?? undefined,
    to: message.to,
    subject: message.subject,
    html: message.html,
    text: message.text,
    messageId: `<${message.id}@${domainOf(settings.fromEmail)}>`,
    headers,
  };
}

export type Delivered = PoolDelivery;

type EmailSending = { row: ChannelConfigRow | null; providers: FeedbackProvider[] };

/** How long a read of a workspace's email configuration serves the sends that start after it. */
const SENDING_READ_MS = 1_000;

type SendingRead = { read: Promise<EmailSending>; until: number };
const sendingReads = new Map<string, SendingRead>();

/**
 * The workspace's email configuration and the feedback providers its sends carry headers for.
 * One read serves every send that starts while it is in flight or within a second of it (a
 * broadcast starts hundreds a second, one at a time as SMTP connections free up): a change made
 * through another process takes effect within a second; one made through this process
 * (forgetEmailSending) at once.
 */
function currentEmailSending(app: AppContext, workspaceId: string): Promise<EmailSending> {
  const cached = sendingReads.get(workspaceId);
  if (cached && performance.now() < cached.until) return cached.read;
  const entry: SendingRead = {
    until: Number.POSITIVE_INFINITY, // while in flight
    read: Promise.all([
      findChannelConfig(app.db, workspaceId, 'email'),
      listFeedbackProviders(app.db, workspaceId),
    ]).then(([row, providers]) => ({ row, providers })),
  };
  sendingReads.set(workspaceId, entry);
  const drop = () => {
    if (sendingReads.get(workspaceId) === entry) sendingReads.delete(workspaceId);
  };
  entry.read.then(
    () => {
      entry.until = performance.now() + SENDING_READ_MS;
      setTimeout(drop, SENDING_READ_MS).unref();
    },
    drop, // a failed read is not kept
  );
  return entry.read;
}

/** Sends from this process read the workspace's email configuration afresh (it just changed). */
export function forgetEmailSending(workspaceId: string): void {
  sendingReads.delete(workspaceId);
}

/** Sends or throws what nodemailer threw; null when the workspace has no email channel. */
export async function deliverEmail(
  app: AppContext,
  workspaceId: string,
  message: EmailMessage,
): Promise<Delivered | null> {
  const { row, providers } = await currentEmailSending(app, workspaceId);
  if (!row) return null;
  const { settings, pool } = await transportFor(app, row);
  return pool.send(mailOptions(settings, message, providers));
}

export async function sendEmail(
  app: AppContext,
  workspaceId: string,
  message: EmailMessage,
): Promise<SendOutcome> {
  try {
    const delivered = await deliverEmail(app, workspaceId, message);
    if (!delivered) return { status: 'permanent', stage: 'config', error: 'channel not configured' };
    const providerId = providerMessageId(delivered.response, delivered.messageId);
    return { status: 'sent', providerId, response: delivered.response };
  } catch (error) {
    const { status, error: text, stage } = classifySmtpError(error);
    app.log.warn({ workspaceId, messageId: message.id, stage, status }, 'email not sent');
    return { status, error: text, stage };
  }
}
