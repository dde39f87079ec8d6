// The account pages: sign in, register and sign out. Both forms go through the same service
// functions as /api/auth/signin and /api/auth/register, so the same limits apply (a 429 page says
// when the lock-out ends, with Retry-After), and both carry the double-submit CSRF token.
import express, { type Express, type Request, type Response } from 'express';
import type { AppContext } from '../core/context.ts';
import { csrfToken, escapeHtml, layout, safeNext, signoutForm, validCsrf } from '../http/html.ts';
import { signInSession, signOutSession } from '../http/session.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { ACCOUNT_PATH } from './console.ts';
import {
  emailField,
  FORM_EXPIRED,
  type FormState,
  field,
  formPage,
  pageError,
  queryText,
} from './pageForms.ts';
import { findUserById, type UserRow } from './queries.ts';
import { installResetPages, PASSWORD_RESET_DONE } from './resetPages.ts';
import { RegisterBody } from './schemas.ts';
import { authenticateUser, registerUserFrom } from './service.ts';

function signinPage(state: FormState): string {
  return formPage(state, {
    title: 'Sign in',
    heading: 'Sign in to Switchboard',
    action: '/auth/signin',
    fields: `${emailField(state)}
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>`,
    footer:
      '<a href="/auth/forgot">Forgot your password?</a> · No account yet? <a href="/auth/register">Register</a>',
  });
}

function registerPage(state: FormState): string {
  return formPage(state, {
    title: 'Register',
    heading: 'Create a Switchboard account',
    action: '/auth/register',
    fields: `<label for="name">Name</label>
  <input id="name" name="name" autocomplete="name" required maxlength="100" value="${escapeHtml(state.values?.name ?? '')}">
  ${emailField(state)}
  <label for="password">Password (8 to 128 characters)</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="128">`,
    footer: 'Already registered? <a href="/auth/signin">Sign in</a>',
  });
}

/** What the sign-in and registration pages show to someone already signed in. */
function signedInPage(user: UserRow, token: string): string {
  return layout(
    'Signed in',
    `<h1>Signed in as ${escapeHtml(user.name)}</h1>
<p>${escapeHtml(user.email)}</p>
<p><a href="/">Your workspaces</a> · <a href="${ACCOUNT_PATH}">Your account</a> · <a href="/docs">API reference</a></p>
${signoutForm(token)}`,
  );
}

async function signedInUser(app: AppContext, req: Request): Promise<UserRow | null> {
  return req.session?.userId ? findUserById(app.db, req.session.userId) : null;
}

async function showForm(app: AppContext, req: Request, res: Response, page: (state: FormState) => string) {
  const token = csrfToken(req, res);
  const user = await signedInUser(app, req);
  // An invitation's link names the invited email; a reset sends the person here to sign in again.
  const values = { email: queryText(req, 'email') };
  const notice = queryText(req, 'reset') === 'done' ? PASSWORD_RESET_DONE : undefined;
  res
    .type('html')
    .send(user ? signedInPage(user, token) : page({ token, next: safeNext(req.query.next), values, notice }));
}

async function handleSignin(app: AppContext, req: Request, res: Response) {
  const state: FormState = { token: csrfToken(req, res), next: safeNext(req.body?.next) };
  const email = field(req, 'email');
  state.values = { email };
  if (!validCsrf(req)) {
    return res
      .status(403)
      .type('html')
      .send(signinPage({ ...state, errors: [FORM_EXPIRED] }));
  }
  try {
    const credentials = { email, password: field(req, 'password'), ip: req.ip ?? 'unknown' };
    const user = await authenticateUser(app.db, app.config, credentials, app.effects.accounts);
    await signInSession(req, user.id);
    res.redirect(303, state.next);
  } catch (error) {
    const message = pageError(res, error, 'Incorrect email or password.');
    res.type('html').send(signinPage({ ...state, errors: [message] }));
  }
}

async function handleRegister(app: AppContext, req: Request, res: Response) {
  const values = { name: field(req, 'name'), email: field(req, 'email') };
  const state: FormState = { token: csrfToken(req, res), next: safeNext(req.body?.next), values };
  if (!validCsrf(req)) {
    return res
      .status(403)
      .type('html')
      .send(registerPage({ ...state, errors: [FORM_EXPIRED] }));
  }
  const parsed = RegisterBody.safeParse({ ...values, password: field(req, 'password') });
  if (!parsed.success) {
    const errors = zodIssuesToFieldErrors(parsed.error.issues, 'form').map(
      (error) => `${error.path.replace(/^form\./, '')}: ${error.message}`,
    );
    return res
      .status(400)
      .type('html')
      .send(registerPage({ ...state, errors }));
  }
  try {
    const user = await registerUserFrom(
      app.db,
      app.config,
      parsed.data,
      req.ip ?? 'unknown',
      app.effects.accounts,
    );
    await signInSession(req, user.id);
    res.redirect(303, state.next);
  } catch (error) {
    const message = pageError(res, error, 'Registration failed. Please try again.');
    res.type('html').send(registerPage({ ...state, errors: [message] }));
  }
}

export function installAccountPages(app: Express, context: AppContext) {
  installResetPages(app, context);
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  app.get('/auth/signin', (req, res) => showForm(context, req, res, signinPage));
  app.post('/auth/signin', form, (req, res) => handleSignin(context, req, res));
  app.get('/auth/register', (req, res) => showForm(context, req, res, registerPage));
  app.post('/auth/register', form, (req, res) => handleRegister(context, req, res));
  app.post('/auth/signout', form, async (req, res) => {
    if (!validCsrf(req))
      return res.status(403).type('html').send(layout('Sign out', '<p>Your form expired.</p>'));
    await signOutSession(req);
    res.redirect(303, '/auth/signin');
  });
}
