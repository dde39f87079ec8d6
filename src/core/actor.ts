// Who is making a change, and from where: what the audit log records beside each configuration
// change. The HTTP route helper and the CLI's command runner say it once per request or command
// (`actingAs`), so the services that change configuration record their entry with one call and no
// extra parameter threaded through every signature; work that nobody started (the worker's jobs)
// acts as the system.
import { AsyncLocalStorage } from 'node:async_hooks';

export type Actor =
  | { kind: 'user'; userId: string }
  | { kind: 'apiKey'; keyId: string }
  | { kind: 'cli'; osUser: string | null }
  | { kind: 'system' };

/** Where the change came from: an HTTP client's address and user agent, or the command line. */
export type Origin =
  | { kind: 'http'; ip: string | null; userAgent: string | null }
  | { kind: 'cli' }
  | { kind: 'system' };

export type Acting = { actor: Actor; origin: Origin };

const SYSTEM: Acting = { actor: { kind: 'system' }, origin: { kind: 'system' } };

const current = new AsyncLocalStorage<Acting>();

/** Runs `work` on behalf of `acting`: the audit entries it records name them. */
export function actingAs<T>(acting: Acting, work: () => T): T {
  return current.run(acting, work);
}

/** Who is acting now; the system when no request or command said. */
export function currentActing(): Acting {
  return current.getStore() ?? SYSTEM;
}
