// Who may call a route: the public, any signed-in user, or a workspace's members and API keys (with
// the scope a key needs and whether sessions need the ADMIN role); and how the OpenAPI document says so.
import type { Scope } from './scopes.ts';

export type Access =
  /** via: the credential a public route checks itself (e.g. a publishable key), for the document. */
  | { kind: 'public'; via?: { scheme: string; description: string } }
  | { kind: 'user' }
  /** scope: what an API key needs (null: keys refused); admin: sessions need the ADMIN role. */
  | { kind: 'workspace'; scope: Scope | null; admin: boolean };

export const access = {
  public: { kind: 'public' } as Access,
  /** A public route that checks its own credential: named in the document by its security scheme. */
  publicWith: (scheme: string, description: string): Access => ({
    kind: 'public',
    via: { scheme, description },
  }),
  user: { kind: 'user' } as Access,
  workspace: (scope: Scope | null, options: { admin?: boolean } = {}): Access => ({
    kind: 'workspace',
    scope,
    admin: options.admin ?? false,
  }),
};

export function security(accessRule: Access): Record<string, string[]>[] {
  if (accessRule.kind === 'public') return accessRule.via ? [{ [accessRule.via.scheme]: [] }] : [];
  if (accessRule.kind === 'user' || accessRule.scope === null) return [{ sessionCookie: [] }];
  return [{ sessionCookie: [] }, { bearerKey: [] }, { keyQuery: [] }];
}

/** The role a session needs: read from the same rule authenticate() enforces, so the two agree. */
export function requiredRole(accessRule: Access & { kind: 'workspace' }): 'ADMIN' | 'MEMBER' {
  return accessRule.admin ? 'ADMIN' : 'MEMBER';
}

export function describeAccess(accessRule: Access): string {
  if (accessRule.kind === 'public') return accessRule.via?.description ?? 'No authentication.';
  if (accessRule.kind === 'user') return 'Requires a signed-in session.';
  const who = accessRule.admin ? 'a session with the ADMIN role' : 'a session of any member';
  const key = accessRule.scope
    ? `, or an API key with scope \`${accessRule.scope}\``
    : ' (API keys are refused)';
  return `Requires ${who}${key}.`;
}
