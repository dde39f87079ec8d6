// `switchboard migrate`, `admin create`, `workspaces list`.
import type { Command } from 'commander';
import { z } from 'zod';
import { RegisterBody } from '../accounts/schemas.ts';
import { registerUser } from '../accounts/service.ts';
import { ValidationError } from '../http/errors.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { migrateAll } from '../runtime.ts';
import { listAllWorkspaces } from '../workspaces/queries.ts';
import { createWorkspace } from '../workspaces/service.ts';
import { print, readStdin, run, table, withDatabase } from './context.ts';

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(zodIssuesToFieldErrors(result.error.issues, 'option'));
  return result.data;
}

export function installAccountCommands(program: Command) {
  program
    .command('migrate')
    .description('apply pending SQL migrations and install the job queue schema')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: { json?: boolean }) => {
        const applied = await withDatabase(({ databaseUrl }) => migrateAll(databaseUrl));
        print(!!options.json, { applied }, () =>
          applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date',
        );
      }),
    );

  const admin = program.command('admin').description('administrator accounts');
  admin
    .command('create')
    .description('create a user and a workspace they administer')
    .requiredOption('--email <email>', 'email address')
    .requiredOption('--name <name>', 'display name')
    .option('--password <password>', 'password (omit to read it from standard input)')
    .requiredOption('--workspace-name <name>', 'name of the workspace to create')
    .option('--json', 'machine-readable output')
    .action(
      run(
        async (options: {
          email: string;
          name: string;
          password?: string;
          workspaceName: string;
          json?: boolean;
        }) => {
          const password = options.password ?? (await readStdin());
          const input = parseOrThrow(RegisterBody, { name: options.name, email: options.email, password });
          const workspaceName = parseOrThrow(z.string().trim().min(1).max(100), options.workspaceName);
          const result = await withDatabase(({ db }) =>
            db.transaction(async (tx) => {
              const user = await registerUser(tx, input);
              const workspace = await createWorkspace(tx, { name: workspaceName, creatorId: user.id });
              return {
                user: { id: user.id, email: user.email, name: user.name },
                workspace: { id: workspace.id, name: workspace.name },
              };
            }),
          );
          print(
            !!options.json,
            result,
            () =>
              `created user ${result.user.id} (${result.user.email}) and workspace ${result.workspace.id} (${result.workspace.name})`,
          );
        },
      ),
    );

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
