// The password reset pages: /auth/forgot asks for the email (the same answer whether or not it
// has an account), /auth/reset?token=… sets the new password. Without a mail server the forgot
// page says whom to ask instead. The same services and limits as the API (passwordReset.ts).
import express, { type Express, type Request, type Response } from 'express';
import type { AppContext } from '../core/context.ts';
import { csrfToken, escapeHtml, layout, validCsrf } from '../http/html.ts';
import {
  emailField,
  FORM_EXPIRED,
  type FormState,
  field,
  formPage,
  pageError,
  queryText,
} from './pageForms.ts';
import {
  completePasswordReset,
  findResetAccount,
  LINK_NOT_WORKING,
  requestPasswordReset,
} from './passwordReset.ts';
import { Email, NewPassword } from './schemas.ts';
import { systemMailEnabled } from './systemMail.ts';

export const PASSWORD_RESET_DONE =
  'Your new password is set and every session of your account has ended: sign in with it.';

const SIGN_IN_LINK = '<a href="/auth/signin">Back to sign in</a>';

function forgotPage(state: FormState): string {
  return formPage(state, {
    title: 'Reset your password',
    heading: 'Reset your password',
    action: '/auth/forgot',
    fields: `<p>Give the email of your account: we will send it a link to set a new password.</p>
  ${emailField(state)}`,
    button: 'Send the link',
    footer: SIGN_IN_LINK,
  });
}

function noMailPage(): string {
  return layout(
    'Reset your password',
    `<h1>Reset your password</h1>
<p>This server sends no mail, so it cannot mail you a link. Ask an operator of this Switchboard to run
<code>switchboard admin reset-link</code> with your email, and to give you the link it prints.</p>
<p>${SIGN_IN_LINK}</p>`,
  );
}

function sentPage(email: string, expiryMs: number): string {
  const minutes = Math.round(expiryMs / 60_000);
  return layout(
    'Check your mail',
    `<h1>Check your mail</h1>
<p role="status">If an account has the email <strong>${escapeHtml(email)}</strong>, a link to set a new password is on
its way to it. The link works once, within ${minutes} minutes.</p>
<p>Nothing after a few minutes? Look in the spam folder, or <a href="/auth/forgot">ask again</a>.</p>
<p>${SIGN_IN_LINK}</p>`,
  );
}

function resetPage(state: FormState & { tokenValue: string }): string {
  return formPage(state, {
    title: 'Set a new password',
    heading: 'Set a new password',
    action: '/auth/reset',
    // The account's email, for password managers to file the new password under.
    fields: `<input type="hidden" name="token" value="${escapeHtml(state.tokenValue)}">
  <input type="email" name="username" autocomplete="username" value="${escapeHtml(state.values?.email ?? '')}" hidden readonly>
  <p>For <strong>${escapeHtml(state.values?.email ?? '')}</strong>. Every session of the account ends.</p>
  <label for="password">New password (8 to 128 characters)</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="128">`,
    footer: SIGN_IN_LINK,
  });
}

function deadLinkPage(): string {
  return layout(
    'Link expired',
    `<h1>This link no longer works</h1>
<p class="error" role="alert">${escapeHtml(LINK_NOT_WORKING)}</p>
<p><a href="/auth/forgot">Ask for a new link</a> · ${SIGN_IN_LINK}</p>`,
  );
}

/** The token is in the address: no other site may see it (Referer), no cache may keep the page. */
function privatePage(res: Response): Response {
  return res.set({ 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' }).type('html');
}

async function handleForgot(app: AppContext, req: Request, res: Response) {
  const email = field(req, 'email');
  const state: FormState = { token: csrfToken(req, res), next: '/', values: { email } };
  if (!validCsrf(req))
    return res
      .status(403)
      .type('html')
      .send(forgotPage({ ...state, errors: [FORM_EXPIRED] }));
  if (!systemMailEnabled(app.config)) return res.type('html').send(noMailPage());
  const parsed = Email.safeParse(email);
  if (!parsed.success)
    return res
      .status(400)
      .type('html')
      .send(forgotPage({ ...state, errors: ['Email: must be a valid email address'] }));
  try {
    await requestPasswordReset(app, { email: parsed.data, ip: req.ip ?? 'unknown' });
    res.type('html').send(sentPage(parsed.data, app.config.PASSWORD_RESET_EXPIRY_MS));
  } catch (error) {
    const message = pageError(res, error, 'The request failed. Please try again.');
    res.type('html').send(forgotPage({ ...state, errors: [message] }));
  }
}

async function showReset(app: AppContext, req: Request, res: Response) {
  const tokenValue = queryText(req, 'token');
  const account = await findResetAccount(app, tokenValue);
  if (!account) return privatePage(res.status(400)).send(deadLinkPage());
  const state = { token: csrfToken(req, res), next: '/', tokenValue, values: { email: account.email } };
  privatePage(res).send(resetPage(state));
}

async function handleReset(app: AppContext, req: Request, res: Response) {
  const tokenValue = field(req, 'token');
  const state = {
    token: csrfToken(req, res),
    next: '/',
    tokenValue,
    values: { email: field(req, 'username') },
  };
  if (!validCsrf(req))
    return privatePage(res.status(403)).send(resetPage({ ...state, errors: [FORM_EXPIRED] }));
  const password = NewPassword.safeParse(field(req, 'password'));
  if (!password.success)
    return privatePage(res.status(400)).send(
      resetPage({ ...state, errors: [`New password: ${password.error.issues[0].message}`] }),
    );
  try {
    const { email } = await completePasswordReset(app, {
      token: tokenValue,
      password: password.data,
      ip: req.ip ?? 'unknown',
    });
    res.redirect(303, `/auth/signin?reset=done&email=${encodeURIComponent(email)}`);
  } catch (error) {
    const message = pageError(res, error, LINK_NOT_WORKING);
    if (message === LINK_NOT_WORKING) return privatePage(res).send(deadLinkPage());
    privatePage(res).send(resetPage({ ...state, errors: [message] }));
  }
}

export function installResetPages(app: Express, context: AppContext) {
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  app.get('/auth/forgot', (req, res) => {
    const state = { token: csrfToken(req, res), next: '/', values: { email: queryText(req, 'email') } };
    res.type('html').send(systemMailEnabled(context.config) ? forgotPage(state) : noMailPage());
  });
  app.post('/auth/forgot', form, (req, res) => handleForgot(context, req, res));
  app.get('/auth/reset', (req, res) => showReset(context, req, res));
  app.post('/auth/reset', form, (req, res) => handleReset(context, req, res));
}
