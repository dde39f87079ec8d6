// Password reset by email. Asking answers the same whether or not the email has an account, and
// only enqueues a job: the worker looks the account up, makes the link and mails it, so neither
// the answer nor its timing tells who is registered, and no link's token sits in the job table.
// A link carries 32 random bytes, of which only the SHA-256 is stored; it works once, for
// PASSWORD_RESET_EXPIRY_MS. Setting the new password (the registration rules) ends every session
// of the account, drops its other links and clears its sign-in lock-out: whoever reads the
// account's mail has proved to be its owner.
// Limits: asking counts against the email and the client address with the sign-in limits (every
// ask counts, as each may send a mail); a link that does not work is a failed sign-in of the address.
// Without SYSTEM_SMTP_URL nothing is mailed: an operator makes a link (`switchboard admin reset-link`).
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../core/context.ts';
import { ValidationError } from '../core/errors.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { deleteAttemptsOfEmail } from './attemptQueries.ts';
import { releaseAttempt, reserveResetLinkUse, reserveResetRequest } from './limits.ts';
import { hashPassword } from './password.ts';
import { findUserByEmail } from './queries.ts';
import {
  consumePasswordReset,
  deleteOpenPasswordResets,
  deleteSessionsOfUser,
  findLivePasswordReset,
  insertPasswordReset,
  updatePasswordHash,
} from './resetQueries.ts';
import { normaliseEmail } from './service.ts';
import { publicBase, SYSTEM_MAIL_QUEUE, sendSystemMail, systemMailEnabled } from './systemMail.ts';

type Services = Pick<AppContext, 'db' | 'boss' | 'config'>;

export const RESET_MAIL_QUEUE = 'accounts.passwordResetMail';

/** The path of the page a link opens; the token is its query. */
export const RESET_PAGE = '/auth/reset';

export const LINK_NOT_WORKING =
  'This password reset link has expired or was already used: ask for a new one.';

/** 32 random bytes, base64url: the whole of what a link carries. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Asks for a link for this email. `byEmail` is false when the service sends no mail at all. */
export async function requestPasswordReset(
  app: Services,
  input: { email: string; ip: string },
): Promise<{ byEmail: boolean }> {
  const email = normaliseEmail(input.email);
  await reserveResetRequest(app.db, app.config, email, input.ip);
  if (!systemMailEnabled(app.config)) return { byEmail: false };
  await app.boss.send(RESET_MAIL_QUEUE, { email });
  return { byEmail: true };
}

/** A new link for the user (for the mail, or printed by the CLI for an operator to pass on). */
export async function createResetLink(app: Pick<AppContext, 'db' | 'config'>, userId: string) {
  const token = randomBytes(32).toString('base64url');
  await insertPasswordReset(app.db, {
    tokenHash: hashToken(token),
    userId,
    expiryMs: app.config.PASSWORD_RESET_EXPIRY_MS,
  });
  return `${publicBase(app.config)}${RESET_PAGE}?token=${token}`;
}

/** The worker's part: an email without an account gets nothing; one with an account, a link. */
async function mailResetLink(app: AppContext, email: string): Promise<void> {
  const user = await findUserByEmail(app.db, email);
  if (!user) return;
  const url = await createResetLink(app, user.id);
  const minutes = Math.round(app.config.PASSWORD_RESET_EXPIRY_MS / 60_000);
  await sendSystemMail(app.config, {
    to: user.email,
    subject: 'Reset your Switchboard password',
    paragraphs: [
      `Hello ${user.name},`,
      `Someone (we hope you) asked to reset the password of the Switchboard account ${user.email}. The link below sets a new one; it works once, within ${minutes} minutes.`,
      'If you did not ask, ignore this mail: your password stays as it is.',
    ],
    action: { label: 'Set a new password', url },
  });
}

export const resetMailJob: JobDefinition<{ email: string }> = {
  name: RESET_MAIL_QUEUE,
  ...SYSTEM_MAIL_QUEUE,
  handler: async (context, jobs) => {
    for (const job of jobs)
      await mailResetLink(context, z.object({ email: z.string() }).parse(job.data).email);
  },
};

/** The account a link would reset, or null when it does not work (the page says so at once). */
export async function findResetAccount(app: Pick<AppContext, 'db'>, token: string) {
  return TOKEN.test(token) ? findLivePasswordReset(app.db, hashToken(token)) : null;
}

/** Sets the new password with a working link; the link is used up. Answers the account's email. */
export async function completePasswordReset(
  app: Pick<AppContext, 'db' | 'config'>,
  input: { token: string; password: string; ip: string },
): Promise<{ email: string }> {
  const attempt = await reserveResetLinkUse(app.db, app.config, input.ip);
  const refused = new ValidationError([{ path: 'body.token', message: LINK_NOT_WORKING }], LINK_NOT_WORKING);
  // A link that does not work keeps its reservation: it counts as a failure.
  if (!(await findResetAccount(app, input.token))) throw refused;
  let passwordHash: string;
  try {
    passwordHash = await hashPassword(input.password, app.config.PASSWORD_HASH_MEMORY_KIB);
  } catch (error) {
    await releaseAttempt(app.db, attempt);
    throw error;
  }
  const account = await app.db.transaction(async (tx) => {
    const used = await consumePasswordReset(tx, hashToken(input.token));
    if (!used) return null;
    await updatePasswordHash(tx, used.user_id, passwordHash);
    await deleteSessionsOfUser(tx, used.user_id);
    await deleteOpenPasswordResets(tx, used.user_id);
    return used;
  });
  // Used by a concurrent request meanwhile: this one is a failure like any dead link.
  if (!account) throw refused;
  await releaseAttempt(app.db, attempt);
  await deleteAttemptsOfEmail(app.db, account.email);
  return { email: account.email };
}
