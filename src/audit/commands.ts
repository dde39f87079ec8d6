// `switchboard audit --workspace <id>`: the audit log, newest first, with the API's filters.
import type { Command } from 'commander';
import { parseOrThrow, print, run, table, withDatabase } from '../cli/context.ts';
import { NotFoundError } from '../core/errors.ts';
import { workspaceExists } from './queries.ts';
import { ListAuditQuery } from './schemas.ts';
import { type AuditEntry, listAudit } from './service.ts';

type Options = {
  workspace: string;
  action?: string;
  actorType?: string;
  actorId?: string;
  targetType?: string;
  targetId?: string;
  since?: string;
  until?: string;
  beforeId?: string;
  limit?: string;
  json?: boolean;
};

function actorText(entry: AuditEntry): string {
  if (entry.actor.type === 'system') return 'system';
  if (entry.actor.type === 'cli') return `cli${entry.actor.name ? ` (${entry.actor.name})` : ''}`;
  return entry.actor.name ?? entry.actor.id ?? '';
}

function entriesText(entries: AuditEntry[]): string {
  return table(
    entries.map((entry) => ({
      id: entry.id,
      createdAt: entry.createdAt,
      action: entry.action,
      target: entry.target.id,
      actor: actorText(entry),
      from: entry.origin.ip ?? (entry.actor.type === 'cli' ? 'cli' : ''),
    })),
    ['id', 'createdAt', 'action', 'target', 'actor', 'from'],
  );
}

export function installAuditCommands(program: Command) {
  program
    .command('audit')
    .description("list a workspace's audit log (configuration changes), newest first")
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--action <action>', 'an action (apiKey.created) or a kind of action (apiKey)')
    .option('--actor-type <type>', 'user, apiKey, cli or system')
    .option('--actor-id <id>', "a user's or API key's id")
    .option('--target-type <type>', 'the kind of thing changed (webhook, segment…)')
    .option('--target-id <id>', 'the id of the thing changed')
    .option('--since <iso>', 'changes at or after this time')
    .option('--until <iso>', 'changes before this time')
    .option('--before-id <id>', "entries older than this one (the last one's id: the next page)")
    .option('--limit <n>', 'how many (default 50, maximum 200)')
    .option('--json', 'machine-readable output, with before and after')
    .action(
      run(async ({ workspace, json, ...options }: Options) => {
        const filter = parseOrThrow(ListAuditQuery, options);
        const entries = await withDatabase(async ({ db }) => {
          if (!(await workspaceExists(db, workspace))) throw new NotFoundError('Workspace');
          return listAudit(db, workspace, filter);
        });
        print(!!json, entries, () => entriesText(entries));
      }),
    );
}
