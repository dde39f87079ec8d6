// `switchboard admin create` (adminCommand.ts), `admin reset-link` (resetLinkCommand.ts), `workspaces list`.
import type { Command } from 'commander';
import { print, run, table, withDatabase } from '../cli/context.ts';
import { installAdminCreate } from './adminCommand.ts';
import { listAllWorkspaces } from './queries.ts';
import { installAdminResetLink } from './resetLinkCommand.ts';

export function installWorkspaceCommands(program: Command) {
  const admin = program.command('admin').description('administrator accounts');
  installAdminCreate(admin);
  installAdminResetLink(admin);

  program
    .command('workspaces')
    .description('workspaces')
    .command('list')
    .description('list every workspace')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: { json?: boolean }) => {
        const rows = await withDatabase(({ db }) => listAllWorkspaces(db));
        const workspaces = rows.map((row) => ({
          id: row.id,
          name: row.name,
          members: row.members,
          createdAt: row.created_at,
        }));
        print(!!options.json, workspaces, () => table(workspaces, ['id', 'name', 'members', 'createdAt']));
      }),
    );
}
