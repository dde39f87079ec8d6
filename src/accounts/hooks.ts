// What accounts need from the workspaces feature, which sits above them (memberships name users):
// handed in by the composition layer (src/app/effects.ts) before any process serves a request.
import type { Db } from '../db/pool.ts';

export type AccountHooks = {
  /** An account exists for this email (registered, or signed in): invitations waiting for it are taken up. */
  accountReady: (db: Db, user: { id: string; email: string }) => Promise<void>;
  /** The workspaces the user belongs to, for GET /api/auth/session. */
  workspacesOf: (db: Db, userId: string) => Promise<readonly { id: string; name: string; role: string }[]>;
};

let hooks: AccountHooks | undefined;

export function installAccountHooks(installed: AccountHooks): void {
  hooks = installed;
}

export function accountHooks(): AccountHooks {
  if (!hooks) throw new Error('account hooks are not installed (src/app/effects.ts)');
  return hooks;
}
