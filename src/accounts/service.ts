import { UniqueIntegrityConstraintViolationError } from 'slonik';
import type { Config } from '../config.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/pool.ts';
import { normaliseEmailText } from '../http/email.ts';
import { ConflictError, RateLimitedError, UnauthorizedError } from '../http/errors.ts';
import { dummyPasswordHash, hashPassword, verifyPassword } from './password.ts';
import {
  countSigninFailures,
  findUserByEmailWithHash,
  insertUser,
  pruneSigninFailures,
  recordSigninFailure,
  type UserRow,
} from './queries.ts';

export type User = { id: string; name: string; email: string; createdAt: string };

export function toUser(row: UserRow): User {
  return { id: row.id, name: row.name, email: row.email, createdAt: row.created_at };
}

export function normaliseEmail(email: string): string {
  return normaliseEmailText(email);
}

export async function registerUser(
  db: Db,
  input: { name: string; email: string; password: string },
): Promise<User> {
  const passwordHash = await hashPassword(input.password);
  try {
    const row = await insertUser(db, {
      id: newId('user'),
      name: input.name.trim(),
      email: normaliseEmail(input.email),
      passwordHash,
    });
    return toUser(row);
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError && error.constraint === 'users_email_key') {
      throw new ConflictError('An account with this email already exists. Sign in instead.', 'email-taken');
    }
    throw error;
  }
}

const INVALID_CREDENTIALS = 'The email or password is incorrect.';

async function checkSigninRate(db: Db, config: Config, subjects: string[]): Promise<void> {
  const window = config.SIGNIN_WINDOW_MINUTES;
  const counts = await countSigninFailures(db, subjects, window);
  for (const count of counts) {
    const limit = count.subject.startsWith('ip:')
      ? config.SIGNIN_MAX_FAILURES_PER_IP
      : config.SIGNIN_MAX_FAILURES_PER_EMAIL;
    if (count.failures >= limit) {
      const reopensAt = Date.parse(count.oldest ?? new Date().toISOString()) + window * 60_000;
      throw new RateLimitedError(
        (reopensAt - Date.now()) / 1000,
        'Too many failed sign-in attempts. Wait before trying again (see Retry-After).',
      );
    }
  }
}

/**
 * Checks credentials. A wrong password and an unknown email get the same error and take the same
 * time. Failures are counted per email and per IP in the database, so limits hold across processes.
 */
export async function authenticateUser(
  db: Db,
  config: Config,
  input: { email: string; password: string; ip: string },
): Promise<User> {
  const email = normaliseEmail(input.email);
  const subjects = [`email:${email}`, `ip:${input.ip}`];
  await checkSigninRate(db, config, subjects);
  const user = await findUserByEmailWithHash(db, email);
  const valid = await verifyPassword(input.password, user?.password_hash ?? (await dummyPasswordHash()));
  if (!user || !valid) {
    await recordSigninFailure(db, subjects);
    if (Math.random() < 0.01) await pruneSigninFailures(db, config.SIGNIN_WINDOW_MINUTES);
    throw new UnauthorizedError(INVALID_CREDENTIALS);
  }
  return toUser(user);
}
