// The account pages: sign in, register and sign out. Both forms go through the same service
// functions as /api/auth/signin and /api/auth/register, so the same limits apply (a 429 page says
// when the lock-out ends, with Retry-After), and both carry the double-submit CSRF token.
import express, { type Express, type Request, type Response } from 'express';
import type { AppContext } from '../core/context.ts';
import { AppError } from '../core/errors.ts';
import { csrfToken, escapeHtml, layout, safeNext, signoutForm, validCsrf } from '../http/html.ts';
import { signInSession, signOutSession } from '../http/session.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { findUserById, type UserRow } from './queries.ts';
import { RegisterBody } from './schemas.ts';
import { authenticateUser, registerUserFrom } from './service.ts';

const FORM_EXPIRED = 'Your form expired. Please try again.';

type FormState = { token: string; next: string; errors?: string[]; values?: Record<string, string> };

function errorList(errors: string[] = []): string {
  if (errors.length === 0) return '';
  if (errors.length === 1) return `<p class="error" role="alert">${escapeHtml(errors[0])}</p>`;
  return `<ul class="error" role="alert">${errors.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>`;
}

function hiddenFields({ token, next }: FormState): string {
  return `<input type="hidden" name="_csrf" value="${token}">
  <input type="hidden" name="next" value="${escapeHtml(next)}">`;
}

function emailField(state: FormState): string {
  return `<label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(state.values?.email ?? '')}">`;
}

/** A page with one form: heading, errors, the CSRF and `next` fields, then the page's own. */
function formPage(
  state: FormState,
  page: { title: string; heading: string; action: string; fields: string; footer: string },
) {
  return layout(
    page.title,
    `<h1>${page.heading}</h1>
${errorList(state.errors)}
<form method="post" action="${page.action}">
  ${hiddenFields(state)}
  ${page.fields}
  <button type="submit">${page.title}</button>
</form>
<p>${page.footer}</p>`,
  );
}

function signinPage(state: FormState): string {
  return formPage(state, {
    title: 'Sign in',
    heading: 'Sign in to Switchboard',
    action: '/auth/signin',
    fields: `${emailField(state)}
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>`,
    footer: 'No account yet? <a href="/auth/register">Register</a>',
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
<p><a href="/">Your workspaces</a> · <a href="/docs">API reference</a></p>
${signoutForm(token)}`,
  );
}

async function signedInUser(app: AppContext, req: Request): Promise<UserRow | null> {
  return req.session?.userId ? findUserById(app.db, req.session.userId) : null;
}

/** The form's text field, or '' (a NUL cannot match any stored text, and PostgreSQL refuses it). */
function field(req: Request, name: string): string {
  const value = req.body?.[name];
  return typeof value === 'string' && !value.includes('\u0000') ? value : '';
}

/** A service error as the page's message: the limits' messages say when to try again. */
function pageError(res: Response, error: unknown, fallback: string): string {
  if (!(error instanceof AppError)) throw error;
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status);
  return error.status === 429 || error.status === 503 || error.status === 409 ? error.message : fallback;
}

async function showForm(app: AppContext, req: Request, res: Response, page: (state: FormState) => string) {
  const token = csrfToken(req, res);
  const user = await signedInUser(app, req);
  res.type('html').send(user ? signedInPage(user, token) : page({ token, next: safeNext(req.query.next) }));
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
