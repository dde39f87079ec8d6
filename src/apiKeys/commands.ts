// `switchboard keys create|list|revoke`: the same services and validation as the API.
import type { Command } from 'commander';
import { parseOrThrow, print, run, table, withDatabase } from '../cli/context.ts';
import { SCOPES } from '../http/scopes.ts';
import { inWorkspace } from '../workspaces/index.ts';
import { CreateApiKeyBody } from './schemas.ts';
import { createApiKey, listApiKeys, revokeKey } from './service.ts';

/** The scopes, two to a line (read, write) as they pair up. */
function scopeHelp(): string {
  const lines: string[] = [];
  for (let i = 0; i < SCOPES.length; i += 2) lines.push(`  ${SCOPES.slice(i, i + 2).join(', ')}`);
  return lines.join('\n');
}

export function installKeyCommands(program: Command) {
  const keys = program.command('keys').description('workspace API keys');
  keys
    .command('create')
    .description('create an API key (printed once)')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--scopes <scopes>', 'comma-separated scopes, e.g. contacts:read,events:write')
    .addHelpText('after', `\nScopes:\n${scopeHelp()}`)
    .option('--expires-at <iso>', 'expiry, ISO 8601')
    .option('--json', 'machine-readable output')
    .action(
      run(
        async (options: {
          workspace: string;
          name: string;
          scopes: string;
          expiresAt?: string;
          json?: boolean;
        }) => {
          const input = parseOrThrow(CreateApiKeyBody, {
            name: options.name,
            scopes: options.scopes
              .split(',')
              .map((scope) => scope.trim())
              .filter(Boolean),
            ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}),
          });
          const created = await inWorkspace(options.workspace, async (context) => {
            return createApiKey(context.db, options.workspace, { ...input, createdBy: null });
          });
          print(
            !!options.json,
            created,
            () => `${created.key}\n(id ${created.id}; store the key now, it is not shown again)`,
          );
        },
      ),
    );
  keys
    .command('list')
    .description('list API keys (masked)')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: { workspace: string; json?: boolean }) => {
        const list = await inWorkspace(options.workspace, async (context) => {
          return listApiKeys(context.db, options.workspace);
        });
        print(!!options.json, list, () =>
          table(
            list.map((key) => ({
              ...key,
              scopes: key.scopes.join(','),
              expiresAt: key.expiresAt ?? '-',
              lastUsedAt: key.lastUsedAt ?? '-',
            })),
            ['id', 'name', 'key', 'scopes', 'expiresAt', 'lastUsedAt', 'createdAt'],
          ),
        );
      }),
    );
  keys
    .command('revoke')
    .description('revoke an API key')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--key-id <id>', 'key id')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: { workspace: string; keyId: string; json?: boolean }) => {
        await withDatabase((context) => revokeKey(context.db, options.workspace, options.keyId));
        print(!!options.json, { revoked: options.keyId }, () => `revoked ${options.keyId}`);
      }),
    );
}
