// How often one person did one thing lately, read from the audit log: the limit of an action that
// costs something outside the service (a test message sent through a provider) counts the entries
// that record it, so the limit holds across processes and restarts with no counter of its own.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import type { AuditAction } from './actions.ts';

/**
 * The user's entries of `action` in every workspace within the last `windowMs`, counted up to
 * `cap` (enough to say "at the limit"). Walks audit_entries_created_idx over the window only.
 */
export async function countRecentActions(
  db: Db,
  input: { userId: string; action: AuditAction; windowMs: number; cap: number },
): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from (
      select 1 from audit_entries
      where created_at > now() - make_interval(secs => ${input.windowMs / 1000})
        and actor_type = 'user' and actor_id = ${input.userId} and action = ${input.action}
      limit ${input.cap}
    ) recent
  `);
}

/** Serialises one user's limited actions until the transaction ends (count, act, record). */
export async function lockUserActions(db: Db, userId: string): Promise<void> {
  await db.query(sql.unsafe`select pg_advisory_xact_lock(hashtextextended(${`audit-limit:${userId}`}, 0))`);
}
