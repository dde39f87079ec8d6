// The service's own mail (SYSTEM_SMTP_URL) pointed at a local SMTP sink for one test file: set on
// this process's service (web and worker share its configuration) before the file's tests and
// unset after them, so the other files of the process see the default, no mail.
import { type ParsedMail, simpleParser } from 'mailparser';
import { parseConfig } from '../../src/config.ts';
import { type SmtpSink, startSmtpSink } from '../channels/smtpSink.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';

export const SYSTEM_FROM = 'Switchboard <noreply@switchboard.test>';

export type SystemMailSink = {
  /** Every message accepted so far to this address, parsed. */
  mailsTo: (email: string) => Promise<ParsedMail[]>;
  /** Waits for the `count`-th message to this address and answers it. */
  nextMailTo: (email: string, count?: number) => Promise<ParsedMail>;
};

export function useSystemMail(): SystemMailSink {
  let sink: SmtpSink | undefined;
  before(async () => {
    sink = await startSmtpSink();
    const url = `smtp://127.0.0.1:${sink.port}?from=${encodeURIComponent(SYSTEM_FROM)}`;
    server().context.config.SYSTEM_SMTP_URL = parseConfig({
      ...process.env,
      SYSTEM_SMTP_URL: url,
    }).SYSTEM_SMTP_URL;
  });
  after(async () => {
    server().context.config.SYSTEM_SMTP_URL = undefined;
    await sink?.close();
  });
  const mailsTo = async (email: string) => {
    const parsed = await Promise.all((sink?.messages ?? []).map((raw) => simpleParser(raw)));
    return parsed.filter((mail) => mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address === email);
  };
  return {
    mailsTo,
    nextMailTo: (email, count = 1) =>
      eventually(async () => {
        const mails = await mailsTo(email);
        return mails.length >= count ? mails[count - 1] : undefined;
      }),
  };
}
