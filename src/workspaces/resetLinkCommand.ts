// `switchboard admin reset-link <email>`: a password reset link for an operator to pass on, the way
// to reset a password when the service sends no mail (SYSTEM_SMTP_URL unset). In the `admin` group
// this feature owns (src/app/featureProgram.ts loads only its owner); the link is accounts' own.
import type { Command } from 'commander';
import { z } from 'zod';
import { createResetLink, Email, findUserByEmail, normaliseEmail } from '../accounts/index.ts';
import { parseOrThrow, print, run, withDatabase } from '../cli/context.ts';
import { NotFoundError } from '../core/errors.ts';

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

export function installAdminResetLink(admin: Command) {
  admin
    .command('reset-link')
    .description(
      'print a password reset link for an account (it works once, for PASSWORD_RESET_EXPIRY_MS); links start with PUBLIC_URL',
    )
    .argument('<email>', "the account's email")
    .option('--json', 'machine-readable output')
    .action(run(resetLinkAction));
}
