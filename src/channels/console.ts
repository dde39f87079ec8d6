// /app/{ws}/settings/channels (src/console/ kit): the email channel's form (SMTP server, sender,
// DKIM) with a test send to an address you type, the provider feedback endpoints' URLs to copy,
// push (its VAPID subject; the public key to copy) and Telegram (its bot token, replaced, never shown). Secrets are never shown back: a "set" badge and a field that replaces
// the stored value when filled (left empty, the stored one is kept, as the API's PUT does). Reading
// is for any member (channels:read); changing and test sends for an ADMIN, as the API.
import type { Request, Response } from 'express';
import {
  badge,
  type ConsolePages,
  consoleForm,
  copyButton,
  csrfField,
  formText,
  groupTabs,
  html,
  isAdmin,
  keyValueList,
  pageWorkspace,
  parseForm,
  redirectWithFlash,
  requireAdmin,
  type SafeHtml,
  sendPage,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { AppError } from '../core/errors.ts';
import { listFeedbackEndpoints } from './email/feedbackQueries.ts';
import { feedbackUrl } from './email/feedbackService.ts';
import { PutEmailConfigBody, TestEmailBody } from './email/schemas.ts';
import { forgetEmailSending } from './email/send.ts';
import { putEmailConfig, toEmailConfig } from './email/service.ts';
import { sendTestEmail } from './email/testMessage.ts';
import { PutPushConfigBody } from './push/schemas.ts';
import { presentPushConfig, putPushConfig } from './push/service.ts';
import { type ChannelConfigRow, findChannelConfig } from './queries.ts';
import { PutTelegramConfigBody } from './telegram/schemas.ts';
import { putTelegramConfig, toTelegramConfig } from './telegram/service.ts';

const SECTION = 'settings/channels';
type EmailConfig = ReturnType<typeof toEmailConfig>;

const set = (yes: boolean) => (yes ? badge('set', 'success') : badge('not set'));

function field(
  name: string,
  label: string,
  value: string | number | null | undefined,
  extra: SafeHtml = html``,
) {
  return html`<label for="email-${name}">${label}</label><input id="email-${name}" name="${name}" value="${value ?? ''}" autocomplete="off"${extra}>`;
}

/** Where a refused form comes back to (its action has no page of its own). */
const back = (res: Response) =>
  html`<input type="hidden" name="_back" value="${workspacePath(res)}/${SECTION}">`;

function emailForm(res: Response, action: string, email: EmailConfig | null): SafeHtml {
  const disabled = isAdmin(res) ? html`` : html` disabled`;
  return html`<form method="post" action="${action}" class="panel stack" aria-labelledby="email-title">${csrfField(res)}${back(res)}
<h2 id="email-title">Email ${email ? badge('configured', 'success') : badge('not configured')}</h2>
<fieldset${disabled}><legend>SMTP server</legend>
${field('host', 'Host', email?.host, html` required placeholder="smtp.example.com"`)}
${field('port', 'Port', email?.port, html` inputmode="numeric" placeholder="587"`)}
<label class="check"><input type="checkbox" name="secure" value="yes"${email?.secure ? html` checked` : ''}> TLS from the start (port 465)</label>
${field('username', 'Username', email?.username)}
<label for="email-password">Password ${set(email?.passwordSet ?? false)}</label>
<input id="email-password" name="password" type="password" autocomplete="new-password" placeholder="${email?.passwordSet ? 'Leave empty to keep the stored password' : ''}">
<label class="check"><input type="checkbox" name="removePassword" value="yes"> Remove the stored password</label></fieldset>
<fieldset${disabled}><legend>Sender</legend>
${field('fromEmail', 'From address', email?.fromEmail, html` type="email" required`)}
${field('fromName', 'From name', email?.fromName)}
${field('replyTo', 'Reply-To', email?.replyTo, html` type="email"`)}
${field('unsubscribeMailto', 'Unsubscribe mailto (optional, {token} in the local part)', email?.unsubscribeMailto)}</fieldset>
<fieldset${disabled}><legend>DKIM <span class="muted">(empty domain: not signed by us)</span></legend>
${field('dkimDomain', 'Domain', email?.dkim?.domain)}
${field('dkimSelector', 'Selector', email?.dkim?.selector)}
<label for="email-dkimPrivateKey">Private key (PEM) ${set(email?.dkim?.privateKeySet ?? false)}</label>
<textarea id="email-dkimPrivateKey" name="dkimPrivateKey" rows="3" autocomplete="off" placeholder="${email?.dkim?.privateKeySet ? 'Leave empty to keep the stored key' : '-----BEGIN PRIVATE KEY-----'}"></textarea></fieldset>
${isAdmin(res) ? html`<div><button type="submit">Save email channel</button></div>` : ''}</form>`;
}

function testForm(res: Response, action: string): SafeHtml {
  return html`<form method="post" action="${action}" class="panel stack" aria-labelledby="test-title">${csrfField(res)}${back(res)}
<h2 id="test-title">Send a test message</h2>
<label for="test-to">To</label><input id="test-to" name="to" type="email" required autocomplete="off">
<div><button type="submit">Send test</button></div></form>`;
}

async function pushPanel(app: AppContext, res: Response, action: string, row: ChannelConfigRow | null) {
  const push = row ? await presentPushConfig(app.db, row) : null;
  const facts = push
    ? keyValueList([
        ['VAPID public key', copyButton(push.publicKey)],
        ['VAPID private key', html`${set(true)} <span class="muted">(made here, never shown)</span>`],
        ['Subscribed browsers', String(push.subscriptions)],
      ])
    : html`<p class="muted">Saving a subject makes the VAPID key pair.</p>`;
  const form = isAdmin(res)
    ? html`<form method="post" action="${action}" class="stack">${csrfField(res)}${back(res)}
<label for="push-subject">VAPID subject <span class="muted">(mailto: or https: URL)</span></label>
<input id="push-subject" name="subject" required value="${push?.subject ?? ''}" placeholder="mailto:ops@example.com" autocomplete="off">
<div><button type="submit">Save push channel</button></div></form>`
    : push
      ? keyValueList([['VAPID subject', push.subject]])
      : '';
  return html`<section class="panel" aria-labelledby="push-title"><h2 id="push-title">Push (Web Push) ${push ? badge('configured', 'success') : badge('not configured')}</h2>${facts}${form}</section>`;
}

function telegramPanel(res: Response, action: string, row: ChannelConfigRow | null): SafeHtml {
  const telegram = row ? toTelegramConfig(row) : null;
  const facts = telegram
    ? keyValueList([
        ['Bot', html`@${telegram.botUsername} <span class="muted">(${telegram.botName})</span>`],
        ['Bot token', set(telegram.tokenSet)],
        ['Updates webhook', copyButton(telegram.webhookUrl, 'Copy URL')],
      ])
    : '';
  const form = isAdmin(res)
    ? html`<form method="post" action="${action}" class="stack">${csrfField(res)}${back(res)}
<label for="telegram-token">${telegram ? 'Replace the bot token' : 'Bot token'} <span class="muted">(from @BotFather; checked with Telegram, never shown back)</span></label>
<input id="telegram-token" name="botToken" type="password" required autocomplete="off">
<div><button type="submit">Save Telegram channel</button></div></form>`
    : '';
  return html`<section class="panel" aria-labelledby="telegram-title"><h2 id="telegram-title">Telegram ${telegram ? badge('configured', 'success') : badge('not configured')}</h2>${facts}${form}</section>`;
}

const nullIfEmpty = (value: string) => (value.trim() === '' ? null : value.trim());

/** The email form as the API's PUT body: empty secret fields keep what is stored. */
function emailBodyOf(req: Request) {
  const port = formText(req, 'port').trim();
  const password = formText(req, 'password');
  const domain = formText(req, 'dkimDomain').trim();
  const privateKey = formText(req, 'dkimPrivateKey').trim();
  return parseForm(PutEmailConfigBody, {
    host: formText(req, 'host').trim(),
    port: port === '' ? undefined : /^\d{1,5}$/.test(port) ? Number(port) : port,
    secure: formText(req, 'secure') === 'yes',
    username: nullIfEmpty(formText(req, 'username')),
    password: password !== '' ? password : formText(req, 'removePassword') === 'yes' ? null : undefined,
    fromEmail: formText(req, 'fromEmail').trim(),
    fromName: nullIfEmpty(formText(req, 'fromName')),
    replyTo: nullIfEmpty(formText(req, 'replyTo')),
    unsubscribeMailto: nullIfEmpty(formText(req, 'unsubscribeMailto')),
    dkim: domain
      ? { domain, selector: formText(req, 'dkimSelector'), ...(privateKey ? { privateKey } : {}) }
      : null,
  });
}

async function channelsPage(app: AppContext, _req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const base = `${workspacePath(res)}/${SECTION}`;
  const [email, push, telegram, feedback] = await Promise.all([
    findChannelConfig(app.db, workspaceId, 'email'),
    findChannelConfig(app.db, workspaceId, 'push'),
    findChannelConfig(app.db, workspaceId, 'telegram'),
    listFeedbackEndpoints(app.db, workspaceId),
  ]);
  const feedbackList =
    feedback.length === 0
      ? html`<p class="muted">No provider feedback endpoint yet (Amazon SES, SendGrid, Postmark): create one with <code>PUT /api/workspaces/${workspaceId}/channels/email/feedback/{provider}</code>.</p>`
      : keyValueList(
          feedback.map((row) => [row.provider, copyButton(feedbackUrl(app.config, row), 'Copy URL')]),
        );
  sendPage(res, {
    title: 'Channels',
    section: SECTION,
    body: html`${groupTabs(res, 'Settings', SECTION)}
${emailForm(res, `${base}/email`, email ? toEmailConfig(email) : null)}
${isAdmin(res) && email ? testForm(res, `${base}/email/test`) : ''}
<section class="panel" aria-labelledby="feedback-title"><h2 id="feedback-title">Provider feedback endpoints</h2>
<p>Give these URLs to your email provider so bounces and complaints reach Switchboard.</p>${feedbackList}</section>
${await pushPanel(app, res, `${base}/push`, push)}
${telegramPanel(res, `${base}/telegram`, telegram)}`,
  });
}

async function saveEmail(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const workspaceId = pageWorkspace(res).id;
  await putEmailConfig(app.db, app.config, workspaceId, emailBodyOf(req));
  forgetEmailSending(workspaceId);
  redirectWithFlash(req, res, `${workspacePath(res)}/${SECTION}`, 'Email channel saved.');
}

async function savePush(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const body = parseForm(PutPushConfigBody, { subject: formText(req, 'subject') });
  await putPushConfig(app.db, pageWorkspace(res).id, body);
  redirectWithFlash(req, res, `${workspacePath(res)}/${SECTION}`, 'Push channel saved.');
}

/** A refusal by a provider (a 502 for the API) is an answer for the person, not a fault of ours. */
function providerRefusal(error: unknown): AppError | null {
  return error instanceof AppError && error.status !== 404 ? error : null;
}

async function saveTelegram(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const page = `${workspacePath(res)}/${SECTION}`;
  const { botToken } = parseForm(PutTelegramConfigBody, { botToken: formText(req, 'botToken') });
  try {
    const row = await putTelegramConfig(app, pageWorkspace(res).id, botToken);
    redirectWithFlash(req, res, page, `Telegram channel saved: @${toTelegramConfig(row).botUsername}.`);
  } catch (error) {
    const refusal = providerRefusal(error);
    if (!refusal) throw error;
    redirectWithFlash(req, res, page, `Telegram channel not saved: ${refusal.message}`, 'error');
  }
}

async function testEmail(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const page = `${workspacePath(res)}/${SECTION}`;
  const { to } = parseForm(TestEmailBody, { to: formText(req, 'to').trim() });
  try {
    const sent = await sendTestEmail(app, pageWorkspace(res).id, to);
    redirectWithFlash(req, res, page, `Test message accepted for ${to}: ${sent.response}`);
  } catch (error) {
    const refusal = providerRefusal(error);
    if (!refusal) throw error;
    redirectWithFlash(req, res, page, `Test message not sent: ${refusal.message}`, 'error');
  }
}

export function channelConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: SECTION, label: 'Channels', group: 'Settings', order: 82 }],
    install(router) {
      router.get(`/${SECTION}`, (req, res) => channelsPage(app, req, res));
      router.post(`/${SECTION}/email`, consoleForm(), (req, res) => saveEmail(app, req, res));
      router.post(`/${SECTION}/telegram`, consoleForm(), (req, res) => saveTelegram(app, req, res));
      router.post(`/${SECTION}/push`, consoleForm(), (req, res) => savePush(app, req, res));
      router.post(`/${SECTION}/email/test`, consoleForm(), (req, res) => testEmail(app, req, res));
    },
  };
}
