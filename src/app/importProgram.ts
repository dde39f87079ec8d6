// `switchboard import …` on its own: the full program (program.ts) loads every feature, with its
// routes, pages, jobs and OpenAPI schemas, ~55 MB of heap and code an import never runs. The
// import calls the campaigns and segments it needs directly, so it is handed no feature effects.
import { Command } from 'commander';
import type { FeatureEffects } from '../core/context.ts';
import { feature as imports } from '../imports/feature.ts';
import { VERSION } from '../version.ts';

/** An import calls no effect: a path that reached one fails loudly, naming it. */
const NO_EFFECTS = new Proxy({} as FeatureEffects, {
  get: (_effects, key) => {
    throw new Error(`switchboard import is handed no feature effects (effects.${String(key)})`);
  },
});

export async function runImportCli(argv: string[]): Promise<void> {
  const program = new Command('switchboard')
    .description('Switchboard administration')
    .version(VERSION)
    .showHelpAfterError();
  imports.commands?.(program, NO_EFFECTS);
  await program.parseAsync(argv);
}
