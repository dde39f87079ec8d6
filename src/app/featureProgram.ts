// `switchboard <group> …` for the command groups one feature owns and no feature effect reaches:
// only that feature's commands.ts is loaded, not its feature.ts (routes, console pages, OpenAPI
// schemas, express) and not the other features. The full program (program.ts) loads every
// feature: ~1,450 modules, about twice the start-up CPU of `keys` (the tests spawn the CLI for
// every command they check, and an admin waits for each). `import` in particular holds a file's
// worth of rows in flight. These install functions take no feature effects, so none can be
// reached; any other command, and help for all of them, is the full program's.
import { Command } from 'commander';
import { VERSION } from '../version.ts';

type Install = (program: Command) => void;

const OWNER: Record<string, () => Promise<Install>> = {
  admin: async () => (await import('../workspaces/commands.ts')).installWorkspaceCommands,
  workspaces: async () => (await import('../workspaces/commands.ts')).installWorkspaceCommands,
  signin: async () => (await import('../accounts/commands.ts')).installSigninCommands,
  keys: async () => (await import('../apiKeys/commands.ts')).installKeyCommands,
  'publishable-keys': async () => (await import('../publicKeys/commands.ts')).installPublishableKeyCommands,
  'identity-secret': async () => (await import('../publicKeys/commands.ts')).installPublishableKeyCommands,
  deliveries: async () => (await import('../webhooks/commands.ts')).installWebhookCommands,
  webhooks: async () => (await import('../webhooks/commands.ts')).installWebhookCommands,
  import: async () => (await import('../imports/commands.ts')).installImportCommands,
  audit: async () => (await import('../audit/commands.ts')).installAuditCommands,
};

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
  const install = await OWNER[argv[2]]();
  install(program);
  await program.parseAsync(argv);
}
