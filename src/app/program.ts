// The `switchboard` command: `migrate` first, every feature's command groups foundations first
// (the order `--help` lists them in), then the groups that span features: secrets and prune.
// Commands one feature runs alone (`keys`, `import`, …) skip all of this: featureProgram.ts.
import type { Command } from 'commander';
import { print, run, withDatabase } from '../cli/context.ts';
import { migrateAll } from './context.ts';
import { newProgram } from './featureProgram.ts';
import { featureEffects, foundationsFirst } from './features.ts';
import { installPruneCommand } from './retention.ts';
import { installSecretCommands } from './secretStores.ts';
import { WHOLE_FEATURES } from './wholeFeatures.ts';

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
  const program = newProgram();
  installMigrate(program);
  const effects = featureEffects();
  for (const feature of foundationsFirst(WHOLE_FEATURES)) feature.commands?.(program, effects);
  installSecretCommands(program);
  installPruneCommand(program);
  await program.parseAsync(argv);
}
