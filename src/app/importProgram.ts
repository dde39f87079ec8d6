// `switchboard import …` on its own: the full program (program.ts) loads every feature, with its
// routes, pages, jobs and OpenAPI schemas, ~55 MB of heap and code an import never runs. The
// import calls the campaigns and segments it needs directly, so it installs no feature effects
// (a path that reached one would fail loudly: src/contacts/effects.ts, src/segments/effects.ts).
import { Command } from 'commander';
import * as imports from '../imports/feature.ts';
import { VERSION } from '../version.ts';

export async function runImportCli(argv: string[]): Promise<void> {
  const program = new Command('switchboard')
    .description('Switchboard administration')
    .version(VERSION)
    .showHelpAfterError();
  imports.commands(program);
  await program.parseAsync(argv);
}
