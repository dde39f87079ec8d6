import { UniqueIntegrityConstraintViolationError } from 'slonik';
import type { Config } from '../config.ts';
import { ConflictError, UnauthorizedError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/pool.ts';
import { normaliseEmailText } from '../http/email.ts';
import type { AccountReady } from './hooks.ts';
import { clearAfterSignin, releaseAttempt, reserveRegistration, reserveSigninAttempt } from './limits.ts';
import { dummyPasswordHash, hashPassword, verifyPassword } from './password.ts';
import { findUserByEmailWithHash, insertUser, type UserRow } from './queries.ts';

export type User = { id: string; name: string; email: string; createdAt: string };

export function toUser(row: UserRow): User {
  return { id: row.id, name: row.name, email: row.email, createdAt: row.created_at };
}

export function normaliseEmail(email: string): string {
  return normaliseEmailText(email);
}

export async function registerUser(
  db: Db,
  config: Config,
  input: { name: string; email: string; password: string },
  hooks: AccountReady,
): Promise<User> {
  const passwordHash = await hashPassword(input.password, config.PASSWORD_HASH_MEMORY_KIB);
  try {
    const row = await insertUser(db, {
      id: newId('user'),
      name: input.name.trim(),
      email: normaliseEmail(input.email),
      passwordHash,
    });
    // Workspaces that invited this email before the account existed take the person in now.
    await hooks.accountReady(db, row);
    return toUser(row);
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError && error.constraint === 'users_email_key') {
      throw new ConflictError('An account with this email already exists. Sign in instead.', 'email-taken');
    }
    throw error;
  }
}

const INVALID_CREDENTIALS = 'The email or password is incorrect.';

/**
 * Checks credentials. A wrong password and an unknown email get the same error and take the same
 * time. The attempt is reserved before the password is checked (limits.ts), so the limits hold
 * across processes and whatever the concurrency.
 */
export async function authenticateUser(
  db: Db,
  config: Config,
  input: { email: string; password: string; ip: string },
  hooks: AccountReady,
): Promise<User> {
  const email = normaliseEmail(input.email);
  const attempt = await reserveSigninAttempt(db, config, email, input.ip);
  let user: Awaited<ReturnType<typeof findUserByEmailWithHash>>;
  let valid: boolean;
  try {
    user = await findUserByEmailWithHash(db, email);
    valid = await verifyPassword(
      input.password,
      user?.password_hash ?? (await dummyPasswordHash(config.PASSWORD_HASH_MEMORY_KIB)),
    );
  } catch (error) {
    await releaseAttempt(db, attempt);
    throw error;
  }
  if (!user || !valid) throw new UnauthorizedError(INVALID_CREDENTIALS);
  await clearAfterSignin(db, attempt);
  // An invitation that reached no account at registration (it came later, or raced it) is taken up now.
  await hooks.accountReady(db, user);
  return toUser(user);
}

/** Registration from a client address, within that address's limit (REGISTRATION_MAX_PER_IP). */
export async function registerUserFrom(
  db: Db,
  config: Config,
  input: { name: string; email: string; password: string },
  ip: string,
  hooks: AccountReady,
): Promise<User> {
  const attempt = await reserveRegistration(db, config, ip);
  try {
    return await registerUser(db, config, input, hooks);
  } catch (error) {
    // A taken email counts (409: one more probe); a busy or failing server does not.
    if (!(error instanceof ConflictError)) await releaseAttempt(db, attempt);
    throw error;
  }
}
