// Password reset links (table password_resets): only the SHA-256 of a link's token is stored.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { forgetCachedSessions } from '../http/sessionCache.ts';

const ResetUser = z.object({ user_id: z.string(), email: z.string() });

export async function insertPasswordReset(
  db: Db,
  input: { tokenHash: string; userId: string; expiryMs: number },
): Promise<void> {
  await db.query(sql.typeAlias('void')`
    insert into password_resets (token_hash, user_id, expires_at)
    values (${input.tokenHash}, ${input.userId}, now() + ${input.expiryMs} * interval '1 millisecond')
  `);
}

/** The account of a link that still works (unused, unexpired), without using it. */
export async function findLivePasswordReset(db: Db, tokenHash: string) {
  return db.maybeOne(sql.type(ResetUser)`
    select r.user_id, u.email from password_resets r join users u on u.id = r.user_id
    where r.token_hash = ${tokenHash} and r.used_at is null and r.expires_at > now()
  `);
}

/** Uses the link, if it still works: one caller wins when two race (the row lock decides). */
export async function consumePasswordReset(db: Db, tokenHash: string) {
  return db.maybeOne(sql.type(ResetUser)`
    update password_resets r set used_at = now() from users u
    where r.token_hash = ${tokenHash} and r.used_at is null and r.expires_at > now()
      and u.id = r.user_id
    returning r.user_id, u.email
  `);
}

/** The user's links not yet used: they go when the password changes (they would reset it again). */
export async function deleteOpenPasswordResets(db: Db, userId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    delete from password_resets where user_id = ${userId} and used_at is null
  `);
}

export async function updatePasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    update users set password_hash = ${passwordHash}, updated_at = now() where id = ${userId}
  `);
}

/** Ends the user's sessions, all of them or all but one (connect-pg-simple keeps the data as json). */
export async function deleteSessionsOfUser(db: Db, userId: string, keptSessionId?: string): Promise<void> {
  const keep = keptSessionId === undefined ? sql.fragment`` : sql.fragment`and sid <> ${keptSessionId}`;
  await db.query(sql.typeAlias('void')`
    delete from sessions where sess ->> 'userId' = ${userId} ${keep}
  `);
  forgetCachedSessions(userId);
}
