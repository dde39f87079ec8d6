// Sending one email through the workspace's pooled transport, and classifying what the SMTP
// server (or the network) answered: a 5xx at RCPT TO is a hard bounce; a 4xx or a broken
// connection is worth retrying; any other 5xx, a refused login or a failed TLS handshake will not
// get better by itself. The error text is the server's reply and the stage: never a credential.
import type { SendMailOptions } from 'nodemailer';
import type { AppContext } from '../../http/context.ts';
import { refusalCause, UnresolvableHostError } from '../../net/ssrf.ts';
import { SecretDecryptionError } from '../../secrets/index.ts';
import { findChannelConfig } from '../queries.ts';
import type { EmailMessage, SendFailure, SendOutcome, SendStage } from '../types.ts';
import { TOKEN_PLACEHOLDER } from './schemas.ts';
import type { EmailSettings } from './service.ts';
import { transportFor } from './transport.ts';

/** What nodemailer's errors carry (smtp-connection sets these). */
type SmtpError = Error & { code?: string; command?: string; responseCode?: number; response?: string };

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

/** The channel's unsubscribe address as a mailto URL for this message's token, if it has one. */
function mailtoOf(settings: EmailSettings, token: string | undefined): string | undefined {
  if (!settings.unsubscribeMailto || !token) return undefined;
  const address = settings.unsubscribeMailto.replace(TOKEN_PLACEHOLDER, token);
  return `mailto:${address}?subject=${encodeURIComponent(`unsubscribe ${token}`)}`;
}

export function mailOptions(settings: EmailSettings, message: EmailMessage): SendMailOptions {
  const headers: Record<string, string> = { 'X-Switchboard-Message-Id': message.id };
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

export type Delivered = { accepted: string[]; response: string; messageId: string };

/** Sends or throws what nodemailer threw; null when the workspace has no email channel. */
export async function deliverEmail(
  app: AppContext,
  workspaceId: string,
  message: EmailMessage,
): Promise<Delivered | null> {
  const row = await findChannelConfig(app.db, workspaceId, 'email');
  if (!row) return null;
  const { settings, transporter } = await transportFor(app, row);
  const info = await transporter.sendMail(mailOptions(settings, message));
  return {
    accepted: (info.accepted as (string | { address: string })[]).map((to) =>
      typeof to === 'string' ? to : to.address,
    ),
    response: info.response ?? '',
    messageId: info.messageId,
  };
}

export async function sendEmail(
  app: AppContext,
  workspaceId: string,
  message: EmailMessage,
): Promise<SendOutcome> {
  try {
    const delivered = await deliverEmail(app, workspaceId, message);
    if (!delivered) return { status: 'permanent', stage: 'config', error: 'channel not configured' };
    return { status: 'sent', providerId: delivered.messageId, response: delivered.response };
  } catch (error) {
    const { status, error: text, stage } = classifySmtpError(error);
    app.log.warn({ workspaceId, messageId: message.id, stage, status }, 'email not sent');
    return { status, error: text, stage };
  }
}
