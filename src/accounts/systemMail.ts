// The service's own mail: password reset links and invitations, written to people, through the one
// server SYSTEM_SMTP_URL names (a workspace's email channel is for its contacts, never for this).
// Only the worker's jobs send it, so a slow or failing mail server is retried there and never holds
// a request, nor tells by its timing whether an account exists. A message is rare: one connection
// per message, nothing pooled to close at shutdown.
import type { Config } from '../config.ts';
import { escapeHtml } from '../http/html.ts';

/**
 * How the mail jobs are worked: one message a job (a retry resends only its own), two at once, and
 * a poll every 2 s besides NOTIFY: pg-boss misses a NOTIFY that comes while the worker is busy and
 * would otherwise wait its default 30 s, which a person waiting for a link notices.
 */
export const SYSTEM_MAIL_QUEUE = {
  queue: { retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 300, notify: true },
  work: { batchSize: 1, localConcurrency: 2, notifyPollingIntervalSeconds: 2 },
};

export type SystemMail = {
  to: string;
  subject: string;
  /** Paragraphs of plain text; the HTML part is made of the same paragraphs, escaped. */
  paragraphs: string[];
  /** The one link the mail is about: its own line in the text, a button-like link in the HTML. */
  action: { label: string; url: string };
};

export function systemMailEnabled(config: Pick<Config, 'SYSTEM_SMTP_URL'>): boolean {
  return config.SYSTEM_SMTP_URL !== undefined;
}

/** The origin links in mail and CLI output start with: PUBLIC_URL, else where the web process listens. */
export function publicBase(config: Pick<Config, 'PUBLIC_URL' | 'PORT'>): string {
  return (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, '');
}

/** A subject is one line whatever a workspace or person is called. */
const oneLine = (text: string) => text.replace(/[\r\n\t\u2028\u2029]+/g, ' ').trim();

export function renderSystemMail(mail: SystemMail) {
  const text = [...mail.paragraphs, `${mail.action.label}: ${mail.action.url}`].join('\n\n');
  const html = `<!doctype html><html><body style="font:16px/1.5 system-ui,sans-serif;color:#1d2433">
${mail.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}
<p><a href="${escapeHtml(mail.action.url)}" style="display:inline-block;padding:.6rem 1rem;background:#2f5bea;color:#fff;border-radius:4px;text-decoration:none">${escapeHtml(mail.action.label)}</a></p>
<p style="color:#5b6475;font-size:14px">${escapeHtml(mail.action.url)}</p>
</body></html>`;
  return { subject: oneLine(mail.subject), text, html };
}

/** Sends one message; throws (and the job retries) when the server refuses or cannot be reached. */
export async function sendSystemMail(config: Config, mail: SystemMail): Promise<void> {
  const smtp = config.SYSTEM_SMTP_URL;
  if (!smtp) throw new Error('SYSTEM_SMTP_URL is not set: no system mail can be sent');
  // Loaded when a mail is sent: the CLI and web processes that import this feature rarely send one.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
    connectionTimeout: config.SMTP_TIMEOUT_MS,
    greetingTimeout: config.SMTP_TIMEOUT_MS,
    socketTimeout: config.SMTP_TIMEOUT_MS * 4,
    logger: false,
  });
  try {
    await transport.sendMail({ from: smtp.from, to: mail.to, ...renderSystemMail(mail) });
  } finally {
    transport.close();
  }
}
