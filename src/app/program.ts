// The `switchboard` command: `migrate` here, every other command group from its feature.
import { Command } from 'commander';
import { print, run, withDatabase } from '../cli/context.ts';
import { VERSION } from '../version.ts';
import { migrateAll } from './context.ts';
import { installFeatureEffects } from './effects.ts';
import { accounts, apiKeys, imports, publicKeys, segments, webhooks, workspaces } from './features.ts';
import { installPruneCommand } from './retention.ts';
import { installSecretCommands } from './secretStores.ts';

function installMigrate(program: Command) {
  program
    .command('migrate')
    .description('apply pending SQL migrations and install the job queue schema')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: { json?: boolean }) => {
        const applied = await withDatabase(({ databaseUrl, config }) => migrateAll(databaseUrl, config));
        print(!!options.json, { applied }, () =>
          applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date',
        );
      }),
    );
}

export async function runCli(argv: string[]): Promise<void> {
  installFeatureEffects();
  const program = new Command('switchboard')
    .description('Switchboard administration')
    .version(VERSION)
    .showHelpAfterError();
  installMigrate(program);
  workspaces.commands(program);
  apiKeys.commands(program);
  publicKeys.commands(program);
  segments.commands(program);
  accounts.commands(program);
  webhooks.commands(program);
  imports.commands(program);
  installSecretCommands(program);
  installPruneCommand(program);
  await program.parseAsync(argv);
}
