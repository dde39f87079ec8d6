// `switchboard publishable-keys create|list|update|revoke` and `switchboard identity-secret
// show|rotate`: the same services and validation as the API, for an operator without a browser.
import type { Command } from 'commander';
import { parseOrThrow, print, run, table } from '../cli/context.ts';
import { inWorkspace } from '../workspaces/index.ts';
import { readIdentitySecret, rotateIdentitySecret } from './identity.ts';
import { CreatePublishableKeyBody, UpdatePublishableKeyBody } from './schemas.ts';
import {
  changePublishableKey,
  createPublishableKey,
  listPublishableKeys,
  revokePublishable,
} from './service.ts';

// The options are named after the API's fields (--allowed-origins for allowedOrigins), so a
// validation error from the API's schema names the option that was typed.
type KeyOptions = { name?: string; allowedOrigins?: string; allowedEventTypes?: string };

/** A comma-separated option as the list the API's body holds; absent stays absent. */
const list = (value: string | undefined) =>
  value
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);

function keyBody(options: KeyOptions) {
  const body = {
    name: options.name,
    allowedOrigins: list(options.allowedOrigins),
    allowedEventTypes: list(options.allowedEventTypes),
  };
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

type KeyRow = Awaited<ReturnType<typeof listPublishableKeys>>[number];
const keyColumns = ['id', 'name', 'key', 'allowedOrigins', 'allowedEventTypes', 'lastUsedAt', 'createdAt'];
const keyLine = (key: KeyRow) => ({
  ...key,
  allowedOrigins: key.allowedOrigins.join(','),
  allowedEventTypes: key.allowedEventTypes.join(',') || '-',
  lastUsedAt: key.lastUsedAt ?? '-',
});

function installKeyCommands(program: Command) {
  const keys = program
    .command('publishable-keys')
    .description('publishable keys (pk_…): browser-safe keys for your pages');
  keys
    .command('create')
    .description('create a publishable key for pages on the given origins')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--allowed-origins <origins>', 'comma-separated origins, e.g. https://www.example.com')
    .option('--allowed-event-types <types>', 'comma-separated event types the key may send, e.g. page_view')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: KeyOptions & { workspace: string; json?: boolean }) => {
        const input = parseOrThrow(CreatePublishableKeyBody, keyBody(options));
        const created = await inWorkspace(options.workspace, async (context) => {
          return createPublishableKey(context.db, options.workspace, { ...input, createdBy: null });
        });
        print(!!options.json, created, () => `${created.key}\n(id ${created.id})`);
      }),
    );
  keys
    .command('list')
    .description('list live publishable keys (shown in full: they are public)')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: { workspace: string; json?: boolean }) => {
        const found = await inWorkspace(options.workspace, async (context) => {
          return listPublishableKeys(context.db, options.workspace);
        });
        print(!!options.json, found, () => table(found.map(keyLine), keyColumns));
      }),
    );
  keys
    .command('update')
    .description("change a publishable key's name, origins or event types (each replaces the old value)")
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--key-id <id>', 'key id')
    .option('--name <name>', 'display name')
    .option('--allowed-origins <origins>', 'comma-separated origins')
    .option('--allowed-event-types <types>', 'comma-separated event types ("" for none)')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: KeyOptions & { workspace: string; keyId: string; json?: boolean }) => {
        const change = parseOrThrow(UpdatePublishableKeyBody, keyBody(options));
        const changed = await inWorkspace(options.workspace, async (context) => {
          return changePublishableKey(context.db, options.workspace, options.keyId, change);
        });
        print(!!options.json, changed, () => table([keyLine(changed)], keyColumns));
      }),
    );
  keys
    .command('revoke')
    .description('revoke a publishable key; pages using it are refused at once')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--key-id <id>', 'key id')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: { workspace: string; keyId: string; json?: boolean }) => {
        await inWorkspace(options.workspace, async (context) => {
          await revokePublishable(context.db, options.workspace, options.keyId);
        });
        print(!!options.json, { revoked: options.keyId }, () => `revoked ${options.keyId}`);
      }),
    );
}

function installIdentitySecretCommands(program: Command) {
  const identity = program
    .command('identity-secret')
    .description('the secret your backend signs identity tokens with');
  const secretAction = (act: typeof readIdentitySecret) =>
    run(async (options: { workspace: string; json?: boolean }) => {
      const secret = await inWorkspace(options.workspace, async (context) => {
        return act(context.db, options.workspace);
      });
      print(
        !!options.json,
        secret,
        () => `${secret.secret}\n(rotated at ${secret.rotatedAt}; keep it on your backend)`,
      );
    });
  identity
    .command('show')
    .description('print the identity secret (made on first use)')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'machine-readable output')
    .action(secretAction(readIdentitySecret));
  identity
    .command('rotate')
    .description('replace the identity secret; tokens signed with the old one stop working at once')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'machine-readable output')
    .action(secretAction(rotateIdentitySecret));
}

export function installPublishableKeyCommands(program: Command) {
  installKeyCommands(program);
  installIdentitySecretCommands(program);
}
