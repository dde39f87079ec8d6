// A signed-in user's name and email. A new email needs the current password: a borrowed session
// must not move the account to an address its borrower reads and then reset the password. A name
// alone does not. An email another account has is a 409 (registration tells as much). The old
// address's unused reset links go; invitations waiting for the new address are taken up, as at
// sign-in.
import type { DatabasePool } from 'slonik';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { ConflictError, ValidationError } from '../core/errors.ts';
import type { AccountReady } from './hooks.ts';
import { CurrentPassword, checkCurrentPassword } from './passwordChange.ts';
import { findUserById, updateUserProfile } from './queries.ts';
import { deleteOpenPasswordResets } from './resetQueries.ts';
import { Email, UserName } from './schemas.ts';
import { normaliseEmail, toUser, type User } from './service.ts';

export const UpdateProfileBody = z
  .strictObject({
    name: UserName.optional(),
    email: Email.optional(),
    currentPassword: CurrentPassword.optional().openapi({
      description: 'Required when `email` changes.',
    }),
  })
  .openapi('UpdateProfileRequest');

export async function updateProfile(
  pool: DatabasePool,
  config: Config,
  hooks: AccountReady,
  input: z.infer<typeof UpdateProfileBody> & { userId: string; ip: string },
): Promise<User> {
  const user = await findUserById(pool, input.userId);
  if (!user) throw new Error('a signed-in session names a user that does not exist');
  const email = input.email === undefined ? user.email : normaliseEmail(input.email);
  const name = input.name?.trim() ?? user.name;
  const emailChanges = email !== user.email;
  if (emailChanges) {
    if (input.currentPassword === undefined)
      throw new ValidationError([
        { path: 'body.currentPassword', message: 'is required to change the email' },
      ]);
    await checkCurrentPassword(pool, config, {
      userId: user.id,
      ip: input.ip,
      currentPassword: input.currentPassword,
    });
  }
  try {
    return await pool.transaction(async (tx) => {
      const updated = await updateUserProfile(tx, user.id, { name, email });
      if (emailChanges) {
        await deleteOpenPasswordResets(tx, user.id);
        await hooks.accountReady(tx, updated);
      }
      return toUser(updated);
    });
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError && error.constraint === 'users_email_key')
      throw new ConflictError('Another account has this email.', 'email-taken');
    throw error;
  }
}
