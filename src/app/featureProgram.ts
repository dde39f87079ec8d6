// `switchboard <group> …` for the command groups one feature owns and no feature effect reaches:
// only that feature is loaded. The full program (program.ts) loads every feature, with its routes,
// pages, jobs and OpenAPI schemas: ~1,450 modules and ~55 MB of heap that such a command never
// runs, and about twice the start-up CPU (the tests spawn the CLI for every command they check).
// `import` in particular holds a file's worth of rows in flight. These commands are handed no
// feature effects: a path that reached one fails loudly, naming it. Any other command, and help
// for all of them, is the full program's.
import { Command } from 'commander';
import type { FeatureEffects } from '../core/context.ts';
import type { Feature } from '../feature/definition.ts';
import { VERSION } from '../version.ts';

const OWNER: Record<string, () => Promise<{ feature: Feature }>> = {
  admin: () => import('../workspaces/feature.ts'),
  workspaces: () => import('../workspaces/feature.ts'),
  signin: () => import('../accounts/feature.ts'),
  keys: () => import('../apiKeys/feature.ts'),
  'publishable-keys': () => import('../publicKeys/feature.ts'),
  deliveries: () => import('../webhooks/feature.ts'),
  webhooks: () => import('../webhooks/feature.ts'),
  import: () => import('../imports/feature.ts'),
};

const NO_EFFECTS = new Proxy({} as FeatureEffects, {
  get: (_effects, key) => {
    throw new Error(`this command is handed no feature effects (effects.${String(key)})`);
  },
});

/** The `switchboard` program with no commands yet. */
export function newProgram(): Command {
  return new Command('switchboard')
    .description('Switchboard administration')
    .version(VERSION)
    .showHelpAfterError();
}

/** Whether `group` (the first argument) is run by its own feature alone. */
export function hasOwnFeature(group: string | undefined): boolean {
  return group !== undefined && Object.hasOwn(OWNER, group);
}

export async function runFeatureCli(argv: string[]): Promise<void> {
  const program = newProgram();
  const { feature } = await OWNER[argv[2]]();
  feature.commands?.(program, NO_EFFECTS);
  await program.parseAsync(argv);
}
