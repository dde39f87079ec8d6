// `switchboard admin create`: a workspace administrator, new or existing. A new email becomes a
// user (password asked on the terminal, or read from a pipe); an existing user is granted the
// workspace without touching their password. The workspace is new (--workspace-name) or one that
// exists (--workspace), which the user joins as ADMIN.
import type { Command } from 'commander';
import { z } from 'zod';
import { Email, findUserByEmail, RegisterBody, registerUser } from '../accounts/index.ts';
import { parseOrThrow, print, run, withDatabase } from '../cli/context.ts';
import { readNewPassword } from '../cli/prompt.ts';
import type { Config } from '../config.ts';
import { BadRequestError, NotFoundError } from '../core/errors.ts';
import type { Tx } from '../db/pool.ts';
import { acceptInvitations } from './invitations.ts';
import { findWorkspaceById } from './queries.ts';
import { addMember, createWorkspace } from './service.ts';

type Options = {
  email: string;
  name?: string;
  password?: string;
  workspaceName?: string;
  workspace?: string;
  json?: boolean;
};

type NewUser = { name: string; email: string; password: string };
type User = { id: string; email: string; name: string; created: boolean };
type Workspace = { id: string; name: string; created: boolean };

const WorkspaceName = z.object({
  workspaceName: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
});

/** Where the user becomes ADMIN: a workspace to create, or one that must exist. */
function parseTarget(options: Options): { workspaceName: string } | { workspaceId: string } {
  if ((options.workspaceName === undefined) === (options.workspace === undefined))
    throw new BadRequestError(
      'Give either --workspace-name (to create a workspace) or --workspace (to join an existing one).',
    );
  if (options.workspace !== undefined) return { workspaceId: options.workspace };
  return parseOrThrow(WorkspaceName, { workspaceName: options.workspaceName });
}

/** A new user's name and password; the name is checked before the password is asked for. */
async function newUserInput(options: Options, email: string): Promise<NewUser> {
  const { name } = parseOrThrow(RegisterBody.pick({ name: true }), { name: options.name ?? '' });
  const password = options.password ?? (await readNewPassword());
  return parseOrThrow(RegisterBody, { name, email, password });
}

async function createUser(tx: Tx, config: Config, input: NewUser): Promise<User> {
  // An invitation already waiting for this email is taken up, as at registration on the web.
  const user = await registerUser(tx, config, input, { accountReady: acceptInvitations });
  return { id: user.id, email: user.email, name: user.name, created: true };
}

async function grantWorkspace(
  tx: Tx,
  user: User,
  target: ReturnType<typeof parseTarget>,
): Promise<Workspace> {
  if ('workspaceName' in target) {
    const workspace = await createWorkspace(tx, { name: target.workspaceName, creatorId: user.id });
    return { id: workspace.id, name: workspace.name, created: true };
  }
  const workspace = await findWorkspaceById(tx, target.workspaceId);
  if (!workspace) throw new NotFoundError('Workspace', `No workspace ${target.workspaceId}.`);
  await addMember(tx, workspace.id, { email: user.email, role: 'ADMIN' });
  return { id: workspace.id, name: workspace.name, created: false };
}

async function createAction(options: Options) {
  const { email } = parseOrThrow(z.object({ email: Email }), { email: options.email });
  const target = parseTarget(options);
  const { user, workspace } = await withDatabase(async ({ db, config }) => {
    const existing = await findUserByEmail(db, email);
    if (existing && (options.password !== undefined || options.name !== undefined))
      throw new BadRequestError(
        `${email} already has an account, whose name and password are not changed here: omit --name and --password to make them ADMIN of the workspace.`,
      );
    if ('workspaceId' in target && !(await findWorkspaceById(db, target.workspaceId)))
      throw new NotFoundError('Workspace', `No workspace ${target.workspaceId}.`);
    const input = existing ? null : await newUserInput(options, email);
    return db.transaction(async (tx) => {
      const user = input ? await createUser(tx, config, input) : { ...existing!, created: false };
      return { user, workspace: await grantWorkspace(tx, user, target) };
    });
  });
  const output = {
    user: { id: user.id, email: user.email, name: user.name },
    workspace: { id: workspace.id, name: workspace.name },
    userCreated: user.created,
    workspaceCreated: workspace.created,
  };
  print(!!options.json, output, () => {
    const who = `${user.created ? 'created user' : 'existing user'} ${user.id} (${user.email})`;
    const where = `${workspace.created ? 'created workspace' : 'workspace'} ${workspace.id} (${workspace.name})`;
    return `${who} is now ADMIN of ${where}`;
  });
}

export function installAdminCreate(admin: Command) {
  admin
    .command('create')
    .description(
      'make a user ADMIN of a workspace: a new user (needs --name; the password is asked on a terminal, ' +
        'or read from standard input) or an existing one (their password is unchanged), ' +
        'of a new workspace (--workspace-name) or an existing one (--workspace)',
    )
    .requiredOption('--email <email>', 'email address')
    .option('--name <name>', 'display name (new users only)')
    .option(
      '--password <password>',
      'password of a new user (omit to be asked, or to read it from standard input)',
    )
    .option('--workspace-name <name>', 'create a workspace with this name')
    .option('--workspace <id>', 'an existing workspace to join as ADMIN')
    .option('--json', 'machine-readable output')
    .action(run(createAction));
}
