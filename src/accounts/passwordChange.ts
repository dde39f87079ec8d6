// Changing one's password: the current password proves it is the account's owner and not someone
// holding a borrowed session, and every other session of the account ends (a stolen cookie stops
// working), as do its unused reset links. Wrong current passwords count as sign-in failures of the
// account's email, so a session cannot be used to guess the password faster than the sign-in form
// allows.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { ValidationError } from '../core/errors.ts';
import { clearAfterSignin, releaseAttempt, reserveSigninAttempt } from './limits.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { findUserByEmailWithHash, findUserById } from './queries.ts';
import { deleteOpenPasswordResets, deleteSessionsOfUser, updatePasswordHash } from './resetQueries.ts';
import { NewPassword } from './schemas.ts';

/**
 * The signed-in user, once `currentPassword` is proved theirs (else a 400 naming the field). The
 * same reservation as a sign-in: a wrong current password is a failed sign-in.
 */
export async function checkCurrentPassword(
  pool: DatabasePool,
  config: Config,
  input: { userId: string; ip: string; currentPassword: string },
) {
  const user = await findUserById(pool, input.userId);
  const withHash = user ? await findUserByEmailWithHash(pool, user.email) : null;
  if (!withHash) throw new Error('a signed-in session names a user that does not exist');
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
  return withHash;
}

export async function changePassword(
  pool: DatabasePool,
  config: Config,
  input: { userId: string; sessionId: string; ip: string; currentPassword: string; newPassword: string },
): Promise<void> {
  const user = await checkCurrentPassword(pool, config, input);
  const passwordHash = await hashPassword(input.newPassword, config.PASSWORD_HASH_MEMORY_KIB);
  await pool.transaction(async (tx) => {
    await updatePasswordHash(tx, user.id, passwordHash);
    await deleteSessionsOfUser(tx, user.id, input.sessionId);
    await deleteOpenPasswordResets(tx, user.id);
  });
}

export const CurrentPassword = z.string().min(1, 'is required').max(1024, 'must be at most 1024 characters');

export const ChangePasswordBody = z
  .strictObject({ currentPassword: CurrentPassword, newPassword: NewPassword })
  .openapi('ChangePasswordRequest');
