// `switchboard migrate`, `admin create`, `workspaces list`.
import type { Command } from 'commander';
import type { z } from 'zod';
import { ValidationError } from '../http/errors.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { migrateAll } from '../runtime.ts';
import { listAllWorkspaces } from '../workspaces/queries.ts';
import { installAdminCreate } from './admin.ts';
import { print, run, table, withDatabase } from './context.ts';

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
  installAdminCreate(admin);

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
