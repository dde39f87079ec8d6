// Sign-in and registration limits that hold whatever the concurrency. An attempt is reserved
// before any password work: under an advisory lock per subject, the attempts within the window
// are counted and, if every subject is under its limit, this attempt is inserted, all in one
// transaction. A burst of N requests therefore checks at most `limit` passwords, where counting
// first and recording the failure after argon2 let the whole burst through the check together.
//
// Sign-in counts three subjects:
// - the email from one client address (SIGNIN_MAX_FAILURES_PER_EMAIL): the ordinary lock-out.
//   Keyed by address too, so someone who knows an email cannot lock its owner out from
//   elsewhere: the owner, from their own address, has a counter of their own;
// - the client address (SIGNIN_MAX_FAILURES_PER_IP): one address guessing many emails;
// - the email from every address (SIGNIN_MAX_FAILURES_PER_EMAIL_ALL_IPS): a larger ceiling, so
//   guessing one account from many addresses stays bounded too.
// A success deletes its own reservation and clears the email's counters for that address and the
// ceiling (the owner has proved the password); a failure keeps the reservation as a failure.
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import { RateLimitedError } from '../core/errors.ts';
import type { Db } from '../db/pool.ts';
import {
  deleteAttempts,
  findLockedSubjects,
  insertAttempt,
  type Limited,
  lockAttemptSubjects,
  pruneAttempts,
} from './attemptQueries.ts';

export type Attempt = { id: string; subjects: string[] };

/** Why each kind of subject is locked, for the message that says until when. */
const LOCKED_BECAUSE: Record<string, string> = {
  'email-ip': 'Too many failed sign-in attempts for this email from your address.',
  ip: 'Too many failed sign-in attempts from your address.',
  email: 'Too many failed sign-in attempts for this email.',
  'register-ip': 'Too many registrations from your address.',
  'reset-email': 'Too many password reset requests for this email.',
  'reset-ip': 'Too many password reset requests from your address.',
};

function lockedError(subject: string, seconds: number): RateLimitedError {
  const wait = Math.max(1, seconds);
  const endsAt = new Date(Date.now() + wait * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const minutes = Math.ceil(wait / 60);
  const reason = LOCKED_BECAUSE[subject.slice(0, subject.indexOf(':'))] ?? 'Too many attempts.';
  return new RateLimitedError(
    wait,
    `${reason} Try again in ${minutes} minute${minutes === 1 ? '' : 's'}, at ${endsAt} (see Retry-After).`,
  );
}

/** The subjects at their limit; when there are none, the attempt has been recorded against each. */
async function lockedOrReserved(db: Db, attempt: Attempt, subjects: Limited[], windowMinutes: number) {
  // Once locked out, a sustained attack is refused by this one read, without taking the locks.
  const already = await findLockedSubjects(db, subjects, windowMinutes);
  if (already.length > 0) return already;
  return db.transaction(async (tx) => {
    await lockAttemptSubjects(tx, attempt.subjects);
    const full = await findLockedSubjects(tx, subjects, windowMinutes);
    if (full.length === 0) await insertAttempt(tx, attempt.id, attempt.subjects);
    return full;
  });
}

/** Reserves one attempt against every subject, or throws 429 naming when the lock-out ends. */
async function reserveAttempt(
  db: Db,
  config: Config,
  subjects: Limited[],
  windowMinutes: number,
): Promise<Attempt> {
  const attempt = { id: randomUUID(), subjects: subjects.map((item) => item.subject) };
  const locked = await lockedOrReserved(db, attempt, subjects, windowMinutes);
  if (locked.length > 0) {
    const longest = locked.reduce((a, b) => (b.retry_after_seconds > a.retry_after_seconds ? b : a));
    throw lockedError(longest.subject, longest.retry_after_seconds);
  }
  // Now and then, drop rows that no window counts any more (the longest window decides).
  if (Math.random() < 0.01) {
    await pruneAttempts(db, wholeMinutes(Math.max(config.SIGNIN_WINDOW_MS, config.REGISTRATION_WINDOW_MS)));
  }
  return attempt;
}

/** The windows are counted in whole minutes (the attempts table is queried by minute). */
const wholeMinutes = (ms: number) => Math.ceil(ms / 60_000);

function signinSubjects(config: Config, email: string, ip: string): Limited[] {
  return [
    { subject: `email-ip:${ip} ${email}`, limit: config.SIGNIN_MAX_FAILURES_PER_EMAIL },
    { subject: `ip:${ip}`, limit: config.SIGNIN_MAX_FAILURES_PER_IP },
    { subject: `email:${email}`, limit: config.SIGNIN_MAX_FAILURES_PER_EMAIL_ALL_IPS },
  ];
}

export function reserveSigninAttempt(db: Db, config: Config, email: string, ip: string) {
  return reserveAttempt(db, config, signinSubjects(config, email, ip), wholeMinutes(config.SIGNIN_WINDOW_MS));
}

/** The password was right: this attempt and the email's failures (here and overall) are cleared. */
export async function clearAfterSignin(db: Db, attempt: Attempt): Promise<void> {
  const emailSubjects = attempt.subjects.filter((subject) => !subject.startsWith('ip:'));
  await deleteAttempts(db, attempt.id, emailSubjects);
}

/** No password was checked (the server was busy, or failed): the attempt does not count. */
export async function releaseAttempt(db: Db, attempt: Attempt): Promise<void> {
  await deleteAttempts(db, attempt.id, []);
}

/** Registrations per client address; every one counts, including those refused as taken (409). */
export function reserveRegistration(db: Db, config: Config, ip: string) {
  return reserveAttempt(
    db,
    config,
    [{ subject: `register-ip:${ip}`, limit: config.REGISTRATION_MAX_PER_IP }],
    wholeMinutes(config.REGISTRATION_WINDOW_MS),
  );
}

/**
 * A password reset request, against the email and the client address with the sign-in limits:
 * every request counts (each may send a mail), whether or not the email has an account.
 */
export function reserveResetRequest(db: Db, config: Config, email: string, ip: string) {
  return reserveAttempt(
    db,
    config,
    [
      { subject: `reset-email:${email}`, limit: config.SIGNIN_MAX_FAILURES_PER_EMAIL },
      { subject: `reset-ip:${ip}`, limit: config.SIGNIN_MAX_FAILURES_PER_IP },
    ],
    wholeMinutes(config.SIGNIN_WINDOW_MS),
  );
}

/** Using a reset link: one that does not work is a failed sign-in of the client address. */
export function reserveResetLinkUse(db: Db, config: Config, ip: string) {
  return reserveAttempt(
    db,
    config,
    [{ subject: `ip:${ip}`, limit: config.SIGNIN_MAX_FAILURES_PER_IP }],
    wholeMinutes(config.SIGNIN_WINDOW_MS),
  );
}
