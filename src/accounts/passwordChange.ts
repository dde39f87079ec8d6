// Changing one's password: the current password proves it is the account's owner and not someone
// holding a borrowed session, and every other session of the account ends (a stolen cookie stops
// working). Wrong current passwords count as sign-in failures of the account's email, so a session
// cannot be used to guess the password faster than the sign-in form allows.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { ValidationError } from '../core/errors.ts';
import { type Db, sql } from '../db/pool.ts';
import { clearAfterSignin, releaseAttempt, reserveSigninAttempt } from './limits.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { findUserByEmailWithHash, findUserById } from './queries.ts';

async function updatePasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    update users set password_hash = ${passwordHash}, updated_at = now() where id = ${userId}
  `);
}

/** Ends every session of the user but the one given (connect-pg-simple keeps the data as json). */
async function deleteOtherSessions(db: Db, userId: string, keptSessionId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    delete from sessions where sess ->> 'userId' = ${userId} and sid <> ${keptSessionId}
  `);
}

export async function changePassword(
  pool: DatabasePool,
  config: Config,
  input: { userId: string; sessionId: string; ip: string; currentPassword: string; newPassword: string },
): Promise<void> {
  const user = await findUserById(pool, input.userId);
  const withHash = user ? await findUserByEmailWithHash(pool, user.email) : null;
  if (!withHash) throw new Error('a signed-in session names a user that does not exist');
  // The same reservation as a sign-in: a wrong current password is a failed sign-in.
  const attempt = await reserveSigninAttempt(pool, config, withHash.email, input.ip);
  let valid: boolean;
  try {
    valid = await verifyPassword(input.currentPassword, withHash.password_hash);
  } catch (error) {
    await releaseAttempt(pool, attempt);
    throw error;
  }
  if (!valid)
    throw new ValidationError([{ path: 'body.currentPassword', message: 'is not your current password' }]);
  await clearAfterSignin(pool, attempt);
  const passwordHash = await hashPassword(input.newPassword, config.PASSWORD_HASH_MEMORY_KIB);
  await pool.transaction(async (tx) => {
    await updatePasswordHash(tx, withHash.id, passwordHash);
    await deleteOtherSessions(tx, withHash.id, input.sessionId);
  });
}

export const ChangePasswordBody = z
  .strictObject({
    currentPassword: z.string().min(1, 'is required').max(1024, 'must be at most 1024 characters'),
    newPassword: z
      .string()
      .min(8, 'must be at least 8 characters')
      .max(128, 'must be at most 128 characters'),
  })
  .openapi('ChangePasswordRequest');
