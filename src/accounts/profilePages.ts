// The signed-in user's own page, /auth/account: their name and email, and their password. The
// same services as PATCH /api/auth/profile and POST /api/auth/password, so the same rules apply: a
// new email or password needs the current password, and a password change ends every other session.
import express, { type Express, type Request, type Response } from 'express';
import type { AppContext } from '../core/context.ts';
import { csrfToken, escapeHtml, layout, signoutForm, validCsrf } from '../http/html.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { errorList, FORM_EXPIRED, field, noticeLine, pageError } from './pageForms.ts';
import { ChangePasswordBody, changePassword } from './passwordChange.ts';
import { UpdateProfileBody, updateProfile } from './profile.ts';
import { findUserById, type UserRow } from './queries.ts';

export const ACCOUNT_PAGE = '/auth/account';

const SAVED: Record<string, string> = {
  profile: 'Your profile is saved.',
  password: 'Your password is changed; your other sessions have ended.',
};

type AccountState = {
  token: string;
  user: UserRow;
  notice?: string;
  /** Errors of one of the two forms, shown above it. */
  errors?: { form: 'profile' | 'password'; messages: string[] };
  values?: { name: string; email: string };
};

function errorsOf(state: AccountState, form: 'profile' | 'password'): string {
  return state.errors?.form === form ? errorList(state.errors.messages) : '';
}

function accountPage(state: AccountState): string {
  const values = state.values ?? { name: state.user.name, email: state.user.email };
  const csrf = `<input type="hidden" name="_csrf" value="${state.token}">`;
  return layout(
    'Your account',
    `<h1>Your account</h1>
${noticeLine(state.notice)}
<h2>Profile</h2>
${errorsOf(state, 'profile')}
<form method="post" action="${ACCOUNT_PAGE}/profile">
  ${csrf}
  <label for="name">Name</label>
  <input id="name" name="name" autocomplete="name" required maxlength="100" value="${escapeHtml(values.name)}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${escapeHtml(values.email)}">
  <label for="profile-password">Current password (only to change the email)</label>
  <input id="profile-password" name="currentPassword" type="password" autocomplete="current-password">
  <button type="submit">Save profile</button>
</form>
<h2>Password</h2>
${errorsOf(state, 'password')}
<form method="post" action="${ACCOUNT_PAGE}/password">
  ${csrf}
  <input type="email" name="username" autocomplete="username" value="${escapeHtml(state.user.email)}" hidden readonly>
  <label for="current-password">Current password</label>
  <input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required>
  <label for="new-password">New password (8 to 128 characters)</label>
  <input id="new-password" name="newPassword" type="password" autocomplete="new-password" required minlength="8" maxlength="128">
  <button type="submit">Change password</button>
</form>
<p><a href="/">Your workspaces</a></p>
${signoutForm(state.token)}`,
  );
}

/** The signed-in user, or null after sending the person to sign in (and back here). */
async function userOrSignin(app: AppContext, req: Request, res: Response): Promise<UserRow | null> {
  const user = req.session?.userId ? await findUserById(app.db, req.session.userId) : null;
  if (!user) res.redirect(303, `/auth/signin?next=${encodeURIComponent(ACCOUNT_PAGE)}`);
  return user;
}

/** Field errors of the page's own validation, named as the form labels them. */
function formErrors(issues: Parameters<typeof zodIssuesToFieldErrors>[0]): string[] {
  return zodIssuesToFieldErrors(issues, 'form').map(
    (error) => `${error.path.replace(/^form\./, '')}: ${error.message}`,
  );
}

async function handleProfile(app: AppContext, req: Request, res: Response, user: UserRow) {
  const values = { name: field(req, 'name'), email: field(req, 'email') };
  const currentPassword = field(req, 'currentPassword') || undefined;
  const parsed = UpdateProfileBody.safeParse({ ...values, currentPassword });
  if (!parsed.success) {
    const errors = { form: 'profile' as const, messages: formErrors(parsed.error.issues) };
    return res
      .status(400)
      .type('html')
      .send(accountPage({ token: csrfToken(req, res), user, values, errors }));
  }
  try {
    await updateProfile(app.db, app.config, app.effects.accounts, {
      ...parsed.data,
      userId: user.id,
      ip: req.ip ?? 'unknown',
    });
    res.redirect(303, `${ACCOUNT_PAGE}?saved=profile`);
  } catch (error) {
    const message = pageError(res, error, 'To change the email, give your current password (the right one).');
    const errors = { form: 'profile' as const, messages: [message] };
    res.type('html').send(accountPage({ token: csrfToken(req, res), user, values, errors }));
  }
}

async function handlePassword(app: AppContext, req: Request, res: Response, user: UserRow) {
  const body = { currentPassword: field(req, 'currentPassword'), newPassword: field(req, 'newPassword') };
  const parsed = ChangePasswordBody.safeParse(body);
  if (!parsed.success) {
    const errors = { form: 'password' as const, messages: formErrors(parsed.error.issues) };
    return res
      .status(400)
      .type('html')
      .send(accountPage({ token: csrfToken(req, res), user, errors }));
  }
  try {
    await changePassword(app.db, app.config, {
      ...parsed.data,
      userId: user.id,
      sessionId: req.sessionID,
      ip: req.ip ?? 'unknown',
    });
    res.redirect(303, `${ACCOUNT_PAGE}?saved=password`);
  } catch (error) {
    const errors = {
      form: 'password' as const,
      messages: [pageError(res, error, 'The current password is not right.')],
    };
    res.type('html').send(accountPage({ token: csrfToken(req, res), user, errors }));
  }
}

/** A POST of the page: signed in (else to sign-in), with the form's CSRF token (else 403). */
function accountPost(app: AppContext, handle: typeof handleProfile) {
  return async (req: Request, res: Response) => {
    const user = await userOrSignin(app, req, res);
    if (!user) return;
    if (!validCsrf(req)) {
      const errors = { form: 'profile' as const, messages: [FORM_EXPIRED] };
      return res
        .status(403)
        .type('html')
        .send(accountPage({ token: csrfToken(req, res), user, errors }));
    }
    await handle(app, req, res, user);
  };
}

export function installProfilePages(app: Express, context: AppContext) {
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  app.get(ACCOUNT_PAGE, async (req, res) => {
    const user = await userOrSignin(context, req, res);
    if (!user) return;
    const saved = typeof req.query.saved === 'string' ? SAVED[req.query.saved] : undefined;
    res
      .set('Cache-Control', 'no-store')
      .type('html')
      .send(accountPage({ token: csrfToken(req, res), user, notice: saved }));
  });
  app.post(`${ACCOUNT_PAGE}/profile`, form, accountPost(context, handleProfile));
  app.post(`${ACCOUNT_PAGE}/password`, form, accountPost(context, handlePassword));
}
