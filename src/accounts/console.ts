// The signed-in user's own console page, /app/account: name and email, and the password. The same
// services as PATCH /api/auth/profile and POST /api/auth/password, so the same rules hold: a new
// email or password needs the current password (a wrong one counts as a failed sign-in), and a
// password change ends every other session. Each form ends in a redirect with a flash message;
// what the services refuse comes back as an error flash (console/errors.ts).
import type { Request, Response, Router } from 'express';
import {
  consoleForm,
  consoleState,
  csrfField,
  formText,
  html,
  parseForm,
  redirectWithFlash,
  sendPage,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { ChangePasswordBody, changePassword } from './passwordChange.ts';
import { UpdateProfileBody, updateProfile } from './profile.ts';

export const ACCOUNT_PATH = '/app/account';

function accountPage(res: Response) {
  const { user } = consoleState(res);
  const back = html`<input type="hidden" name="_back" value="${ACCOUNT_PATH}">`;
  sendPage(res, {
    title: 'Your account',
    body: html`<section class="panel" aria-labelledby="profile-heading"><h2 id="profile-heading">Profile</h2>
<form method="post" action="${ACCOUNT_PATH}/profile">${csrfField(res)}${back}
<label for="name">Name</label>
<input id="name" name="name" autocomplete="name" required maxlength="100" value="${user.name}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${user.email}">
<label for="profile-password">Current password (only to change the email)</label>
<input id="profile-password" name="currentPassword" type="password" autocomplete="current-password">
<p><button type="submit">Save profile</button></p></form></section>
<section class="panel" aria-labelledby="password-heading"><h2 id="password-heading">Password</h2>
<form method="post" action="${ACCOUNT_PATH}/password">${csrfField(res)}${back}
<input type="email" name="username" autocomplete="username" value="${user.email}" hidden readonly>
<label for="current-password">Current password</label>
<input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required>
<label for="new-password">New password (8 to 128 characters)</label>
<input id="new-password" name="newPassword" type="password" autocomplete="new-password" required minlength="8" maxlength="128">
<p><button type="submit">Change password</button></p>
<p class="muted">Your other sessions end; this one stays signed in.</p></form></section>`,
  });
}

async function saveProfile(app: AppContext, req: Request, res: Response) {
  const body = parseForm(UpdateProfileBody, {
    name: formText(req, 'name'),
    email: formText(req, 'email'),
    currentPassword: formText(req, 'currentPassword') || undefined,
  });
  const { user } = consoleState(res);
  await updateProfile(app.db, app.config, app.effects.accounts, {
    ...body,
    userId: user.id,
    ip: req.ip ?? 'unknown',
  });
  redirectWithFlash(req, res, ACCOUNT_PATH, 'Your profile is saved.');
}

async function savePassword(app: AppContext, req: Request, res: Response) {
  const body = parseForm(ChangePasswordBody, {
    currentPassword: formText(req, 'currentPassword'),
    newPassword: formText(req, 'newPassword'),
  });
  await changePassword(app.db, app.config, {
    ...body,
    userId: consoleState(res).user.id,
    sessionId: req.sessionID,
    ip: req.ip ?? 'unknown',
  });
  redirectWithFlash(req, res, ACCOUNT_PATH, 'Your password is changed; your other sessions have ended.');
}

/** Mounted on the console's router beside /app/new, before the workspace pages. */
export function installAccountConsole(router: Router, context: AppContext): void {
  router.get('/account', (_req, res) => accountPage(res));
  router.post('/account/profile', consoleForm(), (req, res) => saveProfile(context, req, res));
  router.post('/account/password', consoleForm(), (req, res) => savePassword(context, req, res));
}
