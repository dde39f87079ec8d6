// Who is calling, and may they call this route? A request authenticates with an API key
// (`Authorization: Bearer <key>` or `?key=<key>`) or with the session cookie. Workspace routes
// then check membership (sessions) or that the key belongs to the workspace and has the scope.
import type { Request } from 'express';
import { z } from 'zod';
import type { Acting } from '../core/actor.ts';
import type { AppContext } from '../core/context.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../core/errors.ts';
import { sql } from '../db/pool.ts';
import type { Access } from './access.ts';
import { readSignedIn, type SignedIn } from './session.ts';

export type Role = 'ADMIN' | 'MEMBER';

export type Principal =
  | { kind: 'anonymous' }
  | { kind: 'session'; userId: string; role: Role | null }
  | { kind: 'key'; keyId: string; scopes: readonly string[] };

export type Authenticated = { principal: Principal; workspaceId: string };

const BAD_KEY = 'The API key is malformed, revoked, expired or not valid for this workspace.';

/**
 * Whether the request authenticates with an API key instead of the session: an Authorization
 * header, or a non-empty `key` query parameter (an empty `?key=` presents nothing). The session
 * middleware, the cross-site check and authentication all ask this one question.
 */
export function presentsApiKey(req: Request): boolean {
  const fromQuery = req.query?.key;
  return req.headers.authorization !== undefined || (fromQuery !== undefined && fromQuery !== '');
}

/** The key presented on the request, if any. A non-Bearer Authorization header is an error. */
export function presentedKey(req: Request): string | null {
  if (!presentsApiKey(req)) return null;
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new UnauthorizedError('Send the API key as `Authorization: Bearer <key>`.');
    return match[1];
  }
  const fromQuery = req.query?.key;
  if (typeof fromQuery !== 'string') throw new UnauthorizedError(BAD_KEY);
  return fromQuery;
}

async function authenticateKey(app: AppContext, key: string, rule: Access, workspaceId: string) {
  const row = await app.apiKeys.find(app.db, key);
  if (!row || rule.kind !== 'workspace' || row.workspace_id !== workspaceId) {
    if (row && rule.kind === 'user')
      throw new ForbiddenError('This route needs a signed-in session; API keys are not accepted.');
    throw new UnauthorizedError(BAD_KEY);
  }
  app.apiKeys.used(app, row);
  if (rule.scope === null) {
    throw new ForbiddenError(
      'API keys cannot use this route: it needs a signed-in session.',
      'session-required',
    );
  }
  if (!row.scopes.includes(rule.scope)) {
    throw new ForbiddenError(
      `The API key lacks the scope \`${rule.scope}\` that this route needs.`,
      'missing-scope',
    );
  }
  return { kind: 'key', keyId: row.id, scopes: row.scopes } as const;
}

const RoleRow = z.object({ role: z.enum(['ADMIN', 'MEMBER']) });

async function membershipRole(app: AppContext, workspaceId: string, userId: string): Promise<Role | null> {
  return app.db.maybeOneFirst(sql.type(RoleRow)`
    select role from memberships where workspace_id = ${workspaceId} and user_id = ${userId}
  `);
}

/**
 * The signed-in user, and their role in `workspaceId` when one is given: from the session
 * express-session loaded, or else (API requests) from one query by the session cookie's id.
 */
export async function signedInUser(
  app: AppContext,
  req: Request,
  workspaceId: string | null,
): Promise<SignedIn | null> {
  if (req.sessionCookieId !== undefined) {
    return req.sessionCookieId === null
      ? null
      : readSignedIn(app.db, app.config, req.sessionCookieId, workspaceId);
  }
  const userId = req.session?.userId;
  if (!userId) return null;
  return { userId, role: workspaceId === null ? null : await membershipRole(app, workspaceId, userId) };
}

async function authenticateSession(app: AppContext, req: Request, rule: Access, workspaceId: string) {
  const signedIn = await signedInUser(app, req, rule.kind === 'workspace' ? workspaceId : null);
  if (!signedIn) throw new UnauthorizedError('Sign in first (POST /api/auth/signin), or send an API key.');
  const { userId, role } = signedIn;
  if (rule.kind !== 'workspace') return { kind: 'session', userId, role: null } as const;
  if (!role) throw new NotFoundError('Workspace');
  if (rule.admin && role !== 'ADMIN') {
    throw new ForbiddenError('Only workspace ADMINs may do this.', 'admin-required');
  }
  return { kind: 'session', userId, role } as const;
}

export async function authenticate(app: AppContext, req: Request, rule: Access): Promise<Authenticated> {
  const workspaceId = typeof req.params?.workspaceId === 'string' ? req.params.workspaceId : '';
  if (rule.kind === 'public') return { principal: { kind: 'anonymous' }, workspaceId };
  const key = presentedKey(req);
  const principal = key
    ? await authenticateKey(app, key, rule, workspaceId)
    : await authenticateSession(app, req, rule, workspaceId);
  return { principal, workspaceId };
}

/** The acting user's id when the caller is a session (for audit columns such as created_by). */
export function actingUserId(principal: Principal): string | null {
  return principal.kind === 'session' ? principal.userId : null;
}

/** Who acts for the audit log, and from where: the session's user or the key, the client's address. */
export function actingFor(principal: Principal, req: Request): Acting {
  const origin = {
    kind: 'http',
    ip: req.ip ?? null,
    userAgent: req.get('user-agent')?.slice(0, 500) ?? null,
  } as const;
  if (principal.kind === 'session') return { actor: { kind: 'user', userId: principal.userId }, origin };
  if (principal.kind === 'key') return { actor: { kind: 'apiKey', keyId: principal.keyId }, origin };
  return { actor: { kind: 'system' }, origin };
}
