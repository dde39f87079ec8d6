// `switchboard signin unlock`: clears a sign-in lock-out before its window ends (an owner locked
// out by someone guessing from many addresses, or by their own typos).
import type { Command } from 'commander';
import { z } from 'zod';
import { parseOrThrow, print, run, withDatabase } from '../cli/context.ts';
import { deleteAttemptsOfAddress, deleteAttemptsOfEmail } from './attemptQueries.ts';
import { normaliseEmail } from './service.ts';

const UnlockOptions = z.strictObject({
  email: z.string().trim().min(1, 'is required').max(254, 'must be at most 254 characters').optional(),
  ip: z.ipv4().or(z.ipv6()).optional(),
  json: z.boolean().optional(),
});

export function installSigninCommands(program: Command) {
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
