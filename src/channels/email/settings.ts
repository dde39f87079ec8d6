// The email channel's configuration form in the console (src/channels/console.ts renders it from
// the registry): SMTP server, sender and DKIM through the API's PUT schema and service, the stored
// password and DKIM key write-only, a test send, and the provider feedback endpoints' URLs.
import { parseForm } from '../../console/index.ts';
import { findChannelConfig } from '../queries.ts';
import type { ChannelSettings, SettingsInput } from '../types.ts';
import { listFeedbackEndpoints } from './feedbackQueries.ts';
import { feedbackUrl } from './feedbackService.ts';
import { PutEmailConfigBody, TestEmailBody } from './schemas.ts';
import { forgetEmailSending } from './send.ts';
import { putEmailConfig, toEmailConfig } from './service.ts';
import { sendTestEmail } from './testMessage.ts';

const orNull = (value: string) => (value === '' ? null : value);

/** The form as the API's PUT body: an empty secret keeps what is stored (as a PUT that leaves it out). */
function bodyOf(input: SettingsInput) {
  const port = input.text('port');
  const domain = input.text('dkimDomain');
  const privateKey = input.secret('dkimPrivateKey');
  return parseForm(PutEmailConfigBody, {
    host: input.text('host'),
    port: port === '' ? undefined : /^\d{1,5}$/.test(port) ? Number(port) : port,
    secure: input.checked('secure'),
    username: orNull(input.text('username')),
    password: input.secret('password'),
    fromEmail: input.text('fromEmail'),
    fromName: orNull(input.text('fromName')),
    replyTo: orNull(input.text('replyTo')),
    unsubscribeMailto: orNull(input.text('unsubscribeMailto')),
    dkim: domain
      ? { domain, selector: input.text('dkimSelector'), ...(privateKey ? { privateKey } : {}) }
      : null,
  });
}

export const emailSettings: ChannelSettings = {
  intro: 'Mail goes out through your SMTP server, from your sender, signed with your DKIM key.',
  fields: [
    { name: 'host', label: 'Host', group: 'SMTP server', required: true, placeholder: 'smtp.example.com' },
    { name: 'port', label: 'Port', kind: 'number', group: 'SMTP server', placeholder: '587' },
    { name: 'secure', label: 'TLS from the start (port 465)', kind: 'checkbox', group: 'SMTP server' },
    { name: 'username', label: 'Username', group: 'SMTP server' },
    { name: 'password', label: 'Password', kind: 'secret', group: 'SMTP server', removable: true },
    { name: 'fromEmail', label: 'From address', kind: 'email', group: 'Sender', required: true },
    { name: 'fromName', label: 'From name', group: 'Sender' },
    { name: 'replyTo', label: 'Reply-To', kind: 'email', group: 'Sender' },
    {
      name: 'unsubscribeMailto',
      label: 'Unsubscribe mailto',
      group: 'Sender',
      hint: 'optional, {token} in the local part',
    },
    { name: 'dkimDomain', label: 'Domain', group: 'DKIM', hint: 'empty: not signed by us' },
    { name: 'dkimSelector', label: 'Selector', group: 'DKIM' },
    {
      name: 'dkimPrivateKey',
      label: 'Private key (PEM)',
      kind: 'secret',
      multiline: true,
      group: 'DKIM',
      placeholder: '-----BEGIN PRIVATE KEY-----',
    },
  ],
  async load(app, workspaceId) {
    const [row, feedback] = await Promise.all([
      findChannelConfig(app.db, workspaceId, 'email'),
      listFeedbackEndpoints(app.db, workspaceId),
    ]);
    const email = row ? toEmailConfig(row) : null;
    return {
      configured: email !== null,
      values: {
        host: email?.host ?? '',
        port: email ? String(email.port) : '',
        secure: email?.secure ? 'yes' : '',
        username: email?.username ?? '',
        fromEmail: email?.fromEmail ?? '',
        fromName: email?.fromName ?? '',
        replyTo: email?.replyTo ?? '',
        unsubscribeMailto: email?.unsubscribeMailto ?? '',
        dkimDomain: email?.dkim?.domain ?? '',
        dkimSelector: email?.dkim?.selector ?? '',
      },
      secretsSet: {
        password: email?.passwordSet ?? false,
        dkimPrivateKey: email?.dkim?.privateKeySet ?? false,
      },
      // Bounces and complaints reach us through these (PUT …/channels/email/feedback/{provider}).
      facts: feedback.map((endpoint) => ({
        label: `Feedback endpoint (${endpoint.provider})`,
        value: feedbackUrl(app.config, endpoint),
        copy: true,
      })),
    };
  },
  async save(app, workspaceId, input) {
    await putEmailConfig(app.db, app.config, workspaceId, bodyOf(input));
    forgetEmailSending(workspaceId);
    return 'Email channel saved.';
  },
  actions: [
    {
      name: 'test',
      title: 'Send a test message',
      button: 'Send test',
      fields: [{ name: 'to', label: 'To', kind: 'email', required: true }],
      async run(app, workspaceId, input) {
        const { to } = parseForm(TestEmailBody, { to: input.text('to') });
        const sent = await sendTestEmail(app, workspaceId, to);
        return `Test message accepted for ${to}: ${sent.response}`;
      },
    },
  ],
};
