// What accounts need from the workspaces feature, which sits above them (memberships name users):
// provided by the workspaces' feature.effects and handed in on the context, as `app.effects.accounts`.
import type { Db } from '../db/pool.ts';

export type AccountHooks = {
  /** An account exists for this email (registered, or signed in): invitations waiting for it are taken up. */
  accountReady: (db: Db, user: { id: string; email: string }) => Promise<void>;
  /** The workspaces the user belongs to, for GET /api/auth/session. */
  workspacesOf: (db: Db, userId: string) => Promise<readonly { id: string; name: string; role: string }[]>;
};

/** What signing in and registering set off: an account is ready. */
export type AccountReady = Pick<AccountHooks, 'accountReady'>;

declare module '../core/context.ts' {
  interface FeatureEffects {
    accounts: AccountHooks;
  }
}
