import { z } from 'zod';
import { UnauthorizedError } from '../core/errors.ts';
import { RetryAfterHeader } from '../http/openapi.ts';
import { signedInUser } from '../http/principal.ts';
import { access, defineRoute } from '../http/route.ts';
import { signInSession, signOutSession } from '../http/session.ts';
import { findUserById } from './queries.ts';
import { RegisterBody, SessionSchema, SigninBody, UserSchema } from './schemas.ts';
import { authenticateUser, registerUserFrom, toUser } from './service.ts';

const tags = ['Accounts'];
const PASSWORD_HASHING_BUSY =
  'Too many passwords are being checked or hashed at once (PASSWORD_HASH_QUEUE); nothing was done. Retry after Retry-After.';

export const accountRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/auth/register',
    operationId: 'auth.register',
    summary: 'Register a user',
    tags,
    access: access.public,
    body: RegisterBody,
    responses: { 201: { description: 'The new user (the password is never returned)', schema: UserSchema } },
    errors: {
      409: 'An account with this email already exists.',
      429: {
        description: 'Too many registrations from this address (REGISTRATION_MAX_PER_IP); see Retry-After.',
        headers: RetryAfterHeader,
      },
      503: { description: PASSWORD_HASHING_BUSY, headers: RetryAfterHeader },
    },
    handler: async ({ app, body, req }) => ({
      status: 201,
      body: await registerUserFrom(app.db, app.config, body, req.ip ?? 'unknown', app.effects.accounts),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/signin',
    operationId: 'auth.signin',
    summary: 'Sign in and receive the session cookie',
    tags,
    access: access.public,
    body: SigninBody,
    responses: {
      200: {
        description: 'Signed in; the response sets the session cookie',
        schema: z.object({ user: UserSchema }),
      },
    },
    errors: {
      401: 'The email or password is incorrect (the same answer for both).',
      403: 'A cross-site request.',
      429: {
        description:
          'Too many failed attempts for this email from this address, from this address, or for this email overall; the detail says when the lock-out ends, as does Retry-After.',
        headers: RetryAfterHeader,
      },
      503: { description: PASSWORD_HASHING_BUSY, headers: RetryAfterHeader },
    },
    handler: async ({ app, body, req }) => {
      const user = await authenticateUser(
        app.db,
        app.config,
        { ...body, ip: req.ip ?? 'unknown' },
        app.effects.accounts,
      );
      await signInSession(req, user.id);
      return { status: 200, body: { user } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/signout',
    operationId: 'auth.signout',
    summary: 'Sign out (ends the session)',
    tags,
    access: access.public,
    responses: { 204: { description: 'Signed out (also when there was no session)' } },
    errors: { 403: 'A cross-site request.' },
    handler: async ({ req, res }) => {
      await signOutSession(req);
      res.clearCookie('sb.sid', { path: '/' });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/auth/session',
    operationId: 'auth.session',
    summary: 'The signed-in user and their workspaces',
    tags,
    access: access.public,
    responses: { 200: { description: 'The current session', schema: SessionSchema } },
    errors: { 401: 'Not signed in, or the session expired.' },
    handler: async ({ app, req }) => {
      const signedIn = await signedInUser(app, req, null);
      const user = signedIn ? (signedIn.user ?? (await findUserById(app.db, signedIn.userId))) : null;
      if (!user) throw new UnauthorizedError('Not signed in.');
      const workspaces = await app.effects.accounts.workspacesOf(app.db, user.id);
      return {
        status: 200,
        body: {
          user: toUser(user),
          workspaces: workspaces.map(({ id, name, role }) => ({ id, name, role })),
        },
      };
    },
  }),
];
