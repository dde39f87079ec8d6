import { RetryAfterHeader } from '../http/openapi.ts';
import { access, defineRoute } from '../http/route.ts';
import { ChangePasswordBody, changePassword } from './passwordChange.ts';
import { completePasswordReset, requestPasswordReset } from './passwordReset.ts';
import { UpdateProfileBody, updateProfile } from './profile.ts';
import {
  PasswordResetAnswer,
  PasswordResetCompleteBody,
  PasswordResetRequestBody,
  UserSchema,
} from './schemas.ts';

const tags = ['Accounts'];
const TOO_MANY_WRONG_PASSWORDS = {
  description: 'Too many failed sign-ins or wrong passwords for this account; see Retry-After.',
  headers: RetryAfterHeader,
};

function sessionOf(principal: { kind: string; userId?: string }): string {
  if (principal.kind !== 'session' || !principal.userId)
    throw new Error('session route reached without a session');
  return principal.userId;
}

export const passwordRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/auth/password',
    operationId: 'auth.changePassword',
    summary: "Change the signed-in user's password; their other sessions end",
    description: 'The current password is required. This session stays signed in; every other one ends.',
    tags,
    access: access.user,
    body: ChangePasswordBody,
    responses: { 204: { description: 'Changed' } },
    errors: {
      400: 'The request is invalid, or `currentPassword` is not the current password.',
      429: TOO_MANY_WRONG_PASSWORDS,
    },
    handler: async ({ app, principal, body, req }) => {
      await changePassword(app.db, app.config, {
        userId: sessionOf(principal),
        sessionId: req.sessionID,
        ip: req.ip ?? 'unknown',
        currentPassword: body.currentPassword,
        newPassword: body.newPassword,
      });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/auth/profile',
    operationId: 'auth.updateProfile',
    summary: "Change the signed-in user's name or email",
    description:
      'A new `email` needs `currentPassword`; a new `name` alone does not. Invitations waiting for the new email are taken up.',
    tags,
    access: access.user,
    body: UpdateProfileBody,
    responses: { 200: { description: 'The user as changed', schema: UserSchema } },
    errors: {
      400: 'The request is invalid, or the email changes without the right `currentPassword`.',
      409: 'Another account has this email.',
      429: TOO_MANY_WRONG_PASSWORDS,
    },
    handler: async ({ app, principal, body, req }) => ({
      status: 200,
      body: await updateProfile(app.db, app.config, app.effects.accounts, {
        ...body,
        userId: sessionOf(principal),
        ip: req.ip ?? 'unknown',
      }),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/password-reset',
    operationId: 'auth.requestPasswordReset',
    summary: 'Ask for a password reset link by email',
    description:
      'The same answer whether or not an account has this email. With a mail server configured ' +
      '(SYSTEM_SMTP_URL), an account with this email is sent a link that works once, for ' +
      'PASSWORD_RESET_EXPIRY_MS (an hour by default). Counted against the sign-in limits of the email and the client address.',
    tags,
    access: access.public,
    body: PasswordResetRequestBody,
    responses: { 202: { description: 'Accepted', schema: PasswordResetAnswer } },
    errors: {
      403: 'A cross-site request.',
      429: {
        description: 'Too many reset requests for this email, or from this address; see Retry-After.',
        headers: RetryAfterHeader,
      },
    },
    handler: async ({ app, body, req }) => ({
      status: 202,
      body: await requestPasswordReset(app, { email: body.email, ip: req.ip ?? 'unknown' }),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/password-reset/complete',
    operationId: 'auth.completePasswordReset',
    summary: "Set a new password with a reset link's token",
    description:
      'The link is used up, every session of the account ends and its sign-in lock-out is cleared; sign in with the new password.',
    tags,
    access: access.public,
    body: PasswordResetCompleteBody,
    responses: { 204: { description: 'The password is set' } },
    errors: {
      400: 'The request is invalid, or the link has expired or was already used (`body.token`).',
      403: 'A cross-site request.',
      429: {
        description: 'Too many failed sign-ins or dead links from this address; see Retry-After.',
        headers: RetryAfterHeader,
      },
      503: {
        description:
          'Too many passwords are being hashed at once; nothing was done. Retry after Retry-After.',
        headers: RetryAfterHeader,
      },
    },
    handler: async ({ app, body, req }) => {
      await completePasswordReset(app, { ...body, ip: req.ip ?? 'unknown' });
      return { status: 204 };
    },
  }),
];
