import { RetryAfterHeader } from '../http/openapi.ts';
import { access, defineRoute } from '../http/route.ts';
import { ChangePasswordBody, changePassword } from './passwordChange.ts';

export const passwordRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/auth/password',
    operationId: 'auth.changePassword',
    summary: "Change the signed-in user's password; their other sessions end",
    description: 'The current password is required. This session stays signed in; every other one ends.',
    tags: ['Accounts'],
    access: access.user,
    body: ChangePasswordBody,
    responses: { 204: { description: 'Changed' } },
    errors: {
      400: 'The request is invalid, or `currentPassword` is not the current password.',
      429: {
        description: 'Too many failed sign-ins or wrong passwords for this account; see Retry-After.',
        headers: RetryAfterHeader,
      },
    },
    handler: async ({ app, principal, body, req }) => {
      if (principal.kind !== 'session') throw new Error('session route reached without a session');
      await changePassword(app.db, app.config, {
        userId: principal.userId,
        sessionId: req.sessionID,
        ip: req.ip ?? 'unknown',
        currentPassword: body.currentPassword,
        newPassword: body.newPassword,
      });
      return { status: 204 };
    },
  }),
];
