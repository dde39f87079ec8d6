// `switchboard signin unlock`: clears a sign-in lock-out before its window ends (an owner locked
// out by someone guessing from many addresses, or by their own typos).
// `switchboard admin reset-link <email>`: a password reset link for an operator to pass on, the
// way to reset a password when the service sends no mail (SYSTEM_SMTP_URL unset).
import type { Command } from 'commander';
import { z } from 'zod';
import { parseOrThrow, print, run, withDatabase } from '../cli/context.ts';
import { NotFoundError } from '../core/errors.ts';
import { deleteAttemptsOfAddress, deleteAttemptsOfEmail } from './attemptQueries.ts';
import { createResetLink } from './passwordReset.ts';
import { findUserByEmail } from './queries.ts';
import { Email } from './schemas.ts';
import { normaliseEmail } from './service.ts';

const UnlockOptions = z.strictObject({
  email: z.string().trim().min(1, 'is required').max(254, 'must be at most 254 characters').optional(),
  ip: z.ipv4().or(z.ipv6()).optional(),
  json: z.boolean().optional(),
});

async function resetLinkAction(rawEmail: string, options: { json?: boolean }) {
  const { email } = parseOrThrow(z.object({ email: Email }), { email: rawEmail });
  const { link, expiresAt } = await withDatabase(async (context) => {
    const user = await findUserByEmail(context.db, normaliseEmail(email));
    if (!user) throw new NotFoundError('User', `No account has the email ${email}.`);
    const expiresAt = new Date(Date.now() + context.config.PASSWORD_RESET_EXPIRY_MS).toISOString();
    return { link: await createResetLink(context, user.id), expiresAt };
  });
  print(!!options.json, { email, link, expiresAt }, () =>
    [
      `Password reset link for ${email} (works once, until about ${expiresAt.replace(/\.\d{3}Z$/, 'Z')}):`,
      link,
      'Give it to the account owner only: whoever opens it can set the password.',
    ].join('\n'),
  );
}

/** The `admin` group (workspaces' `admin create` makes it first), or a new one. */
function adminGroup(program: Command): Command {
  return (
    program.commands.find((command) => command.name() === 'admin') ??
    program.command('admin').description('administrator accounts')
  );
}

export function installSigninCommands(program: Command) {
  adminGroup(program)
    .command('reset-link')
    .description(
      'print a password reset link for an account (it works once, for PASSWORD_RESET_EXPIRY_MS); links start with PUBLIC_URL',
    )
    .argument('<email>', "the account's email")
    .option('--json', 'machine-readable output')
    .action(run(resetLinkAction));

  program
    .command('signin')
    .description('sign-in limits')
    .command('unlock')
    .description("clear an email's failed sign-ins (from every address), or an address's")
    .option('--email <email>', 'the email to unlock')
    .option('--ip <address>', 'clear the failures counted against this client address (with --email: both)')
    .option('--json', 'machine-readable output')
    .action(
      run(async (raw: { email?: string; ip?: string; json?: boolean }) => {
        const options = parseOrThrow(UnlockOptions, raw);
        if (!options.email && !options.ip) throw new Error('give --email, --ip or both');
        const email = options.email ? normaliseEmail(options.email) : null;
        const cleared = await withDatabase(async ({ db }) => {
          const ofEmail = email ? await deleteAttemptsOfEmail(db, email) : 0;
          const ofIp = options.ip ? await deleteAttemptsOfAddress(db, options.ip) : 0;
          return ofEmail + ofIp;
        });
        const who = [email, options.ip].filter(Boolean).join(' and ');
        print(!!options.json, { email, ip: options.ip ?? null, cleared }, () =>
          cleared > 0 ? `unlocked ${who} (${cleared} failed attempts cleared)` : `${who} was not locked`,
        );
      }),
    );
}
