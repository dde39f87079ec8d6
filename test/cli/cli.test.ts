// The `switchboard` CLI, run as a real process against the test database.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { SCOPES } from '../../src/http/scopes.ts';
import { type CliRun, cliEnv, collect, ROOT, runCli, runCliOnTerminal } from '../support/cli.ts';
import { Client } from '../support/client.ts';
import { expectProblem, uniqueEmail, workspaceWithAdmin } from '../support/factories.ts';
import { expectCreatedKey, ISO_MS } from '../support/helpers.ts';

function cli(args: string[], stdin = ''): Promise<CliRun> {
  return runCli(args, { stdin });
}

async function cliJson(args: string[], stdin = '') {
  const run = await cli([...args, '--json'], stdin);
  expect(run.code, run.stderr).to.equal(0);
  return JSON.parse(run.stdout);
}

async function adminCreate(extra: string[] = [], stdin = '') {
  const email = uniqueEmail('cli');
  const args = [
    'admin',
    'create',
    '--email',
    email,
    '--name',
    'CLI Admin',
    '--workspace-name',
    'CLI Workspace',
  ];
  return { email, result: await cliJson([...args, ...extra], stdin) };
}

describe('CLI', function () {
  this.timeout(60_000);

  it('migrate applies nothing on a migrated database, and says so', async () => {
    const text = await cli(['migrate']);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout.trim()).to.equal('database is up to date');
    expect(await cliJson(['migrate'])).to.deep.equal({ applied: [] });
  });

  it('admin create makes a user and their workspace; --json prints {user, workspace}', async () => {
    const { email, result } = await adminCreate(['--password', 'a long password']);
    expect(Object.keys(result).sort()).to.deep.equal([
      'user',
      'userCreated',
      'workspace',
      'workspaceCreated',
    ]);
    expect(result).to.include({ userCreated: true, workspaceCreated: true });
    expect(Object.keys(result.user).sort()).to.deep.equal(['email', 'id', 'name']);
    expect(result.user).to.include({ email, name: 'CLI Admin' });
    expect(result.workspace).to.deep.equal({ id: result.workspace.id, name: 'CLI Workspace' });
    const client = new Client();
    expect((await client.post('/api/auth/signin', { email, password: 'a long password' })).status).to.equal(
      200,
    );
    const session = await client.get('/api/auth/session');
    expect(session.body.workspaces).to.deep.equal([{ ...result.workspace, role: 'ADMIN' }]);
  });

  it('admin create reads the password from standard input when --password is absent', async () => {
    const { email } = await adminCreate([], 'password from stdin\n');
    const signin = await new Client().post('/api/auth/signin', { email, password: 'password from stdin' });
    expect(signin.status).to.equal(200);
  });

  it('admin create takes a piped password typed twice as that password, and refuses two that differ', async () => {
    const { email } = await adminCreate([], 'typed twice\ntyped twice\n');
    const signin = await new Client().post('/api/auth/signin', { email, password: 'typed twice' });
    expect(signin.status).to.equal(200);

    const other = uniqueEmail('differ');
    const args = ['admin', 'create', '--email', other, '--name', 'D', '--workspace-name', 'W'];
    const run = await cli(args, 'first try\nsecond try\n');
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include('the two passwords on standard input differ');
    const refused = await new Client().post('/api/auth/signin', { email: other, password: 'first try' });
    expect(refused.status).to.equal(401);
  });

  it('admin create on a terminal asks for the password twice without echoing it', async () => {
    const email = uniqueEmail('tty');
    const typed = 'typed at a terminal';
    const run = await runCliOnTerminal(
      ['admin', 'create', '--email', email, '--name', 'T', '--workspace-name', 'W'],
      [
        { waitFor: 'Password: ', type: `${typed}\r` },
        { waitFor: 'Confirm password: ', type: `${typed}\r` },
      ],
    );
    expect(run.code, run.stdout).to.equal(0);
    expect(run.stdout).to.match(/^Password: \nConfirm password: \ncreated user usr_\w+ /);
    expect(run.stdout).not.to.contain(typed);
    const signin = await new Client().post('/api/auth/signin', { email, password: typed });
    expect(signin.status).to.equal(200);
  });

  it('admin create on a terminal refuses two different passwords and creates nothing', async () => {
    const email = uniqueEmail('tty');
    const run = await runCliOnTerminal(
      ['admin', 'create', '--email', email, '--name', 'T', '--workspace-name', 'W'],
      [
        { waitFor: 'Password: ', type: 'first password\r' },
        { waitFor: 'Confirm password: ', type: 'second password\r' },
      ],
    );
    expect(run.code).to.equal(1);
    expect(run.stdout).to.contain('error: the two passwords differ; nothing was changed');
    const created = await cli(['admin', 'create', '--email', email, '--workspace-name', 'W', '--json']);
    expect(created.stderr).to.contain('--name: ');
  });

  it('admin create makes an existing user ADMIN of a new workspace, or of an existing one, without a password', async () => {
    const { email, result: first } = await adminCreate(['--password', 'a long password']);
    const grant = (target: string[]) =>
      cliJson(['admin', 'create', '--email', email.toUpperCase(), ...target]);
    const second = await grant(['--workspace-name', 'Second']);
    expect(second).to.deep.include({ user: first.user, userCreated: false, workspaceCreated: true });
    expect(second.workspace.name).to.equal('Second');

    const { client: owner, workspaceId } = await workspaceWithAdmin();
    const joined = await grant(['--workspace', workspaceId]);
    expect(joined).to.deep.include({ user: first.user, userCreated: false, workspaceCreated: false });
    const members = (await owner.get(`/api/workspaces/${workspaceId}/members`)).body;
    expect(members.find((member: { email: string }) => member.email === email)).to.include({ role: 'ADMIN' });

    const client = new Client();
    expect((await client.post('/api/auth/signin', { email, password: 'a long password' })).status).to.equal(
      200,
    );
    const session = await client.get('/api/auth/session');
    expect(session.body.workspaces.map((workspace: { id: string }) => workspace.id).sort()).to.deep.equal(
      [first.workspace.id, second.workspace.id, workspaceId].sort(),
    );

    const again = await cli(['admin', 'create', '--email', email, '--workspace', workspaceId]);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.contain('already a member');
    const unknown = await cli(['admin', 'create', '--email', email, '--workspace', 'ws_nope']);
    expect(unknown.stderr).to.contain('No workspace ws_nope');
    const both = await cli([
      'admin',
      'create',
      '--email',
      email,
      '--workspace',
      workspaceId,
      '--workspace-name',
      'X',
    ]);
    expect(both.stderr).to.contain('either --workspace-name');
  });

  it('admin create refuses a password for an existing email, and a short password, with exit code 1', async () => {
    const { email } = await adminCreate(['--password', 'a long password']);
    const args = ['admin', 'create', '--name', 'X', '--workspace-name', 'W', '--password'];
    const existing = await cli([...args, 'a long password', '--email', email.toUpperCase()]);
    const short = await cli([...args, 'short', '--email', uniqueEmail()]);
    for (const run of [existing, short]) {
      expect(run.code).to.equal(1);
      expect(run.stdout).to.equal('');
      expect(run.stderr).to.match(/^error: /);
    }
    expect(existing.stderr).to.contain('already has an account');
    expect(short.stderr).to.equal('error: --password: must be at least 8 characters\n');
  });

  it('workspaces list prints every workspace with its member count', async () => {
    const { result } = await adminCreate(['--password', 'a long password']);
    const list = await cliJson(['workspaces', 'list']);
    const row = list.find((workspace: { id: string }) => workspace.id === result.workspace.id);
    expect(row).to.include({ name: 'CLI Workspace', members: 1 });
    expect(row.createdAt).to.match(ISO_MS);
    const text = await cli(['workspaces', 'list']);
    expect(text.stdout)
      .to.match(/^id\s+name\s+members\s+createdAt/)
      .and.contain(result.workspace.id);
  });

  it('keys create, list and revoke print what the API prints, and the key works over HTTP', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const args = ['keys', 'create', '--workspace', workspaceId, '--name', 'from cli'];
    const created = await cliJson([
      ...args,
      '--scopes',
      'contacts:read, events:write',
      '--expires-at',
      expiresAt,
    ]);
    expectCreatedKey(created, { name: 'from cli', expiresAt });

    const listed = await cliJson(['keys', 'list', '--workspace', workspaceId]);
    expect(listed).to.deep.equal((await admin.get(`/api/workspaces/${workspaceId}/keys`)).body);
    expect(listed[0]).to.include({
      id: created.id,
      key: `${created.key.slice(0, 7)}…${created.key.slice(-4)}`,
    });

    // Recognised by the API as a live key of this workspace (403: keys may not manage keys) …
    expectProblem(await new Client(created.key).get(`/api/workspaces/${workspaceId}/keys`), 403);
    const revoked = await cliJson(['keys', 'revoke', '--workspace', workspaceId, '--key-id', created.id]);
    expect(revoked).to.deep.equal({ revoked: created.id });
    // … and no longer once revoked.
    expectProblem(await new Client(created.key).get(`/api/workspaces/${workspaceId}/keys`), 401);
    expect(await cliJson(['keys', 'list', '--workspace', workspaceId])).to.deep.equal([]);
  });

  it('prints the key alone on the first line without --json', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    const run = await cli([
      'keys',
      'create',
      '--workspace',
      workspaceId,
      '--name',
      'k',
      '--scopes',
      'contacts:read',
    ]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout.split('\n')[0]).to.match(/^sb_[A-Za-z0-9_-]{49}$/);
  });

  it('reports errors on stderr with exit code 1: bad scope, bad expiry, unknown workspace or key', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    const create = ['keys', 'create', '--name', 'k', '--workspace'];
    const runs = {
      badScope: await cli([...create, workspaceId, '--scopes', 'contacts:read,everything']),
      pastExpiry: await cli([
        ...create,
        workspaceId,
        '--scopes',
        'contacts:read',
        '--expires-at',
        '2020-01-01T00:00:00Z',
      ]),
      unknownWorkspace: await cli([...create, 'ws_01JD2Z3K4M5N6P7Q8R9S0T1V2W', '--scopes', 'contacts:read']),
      listUnknownWorkspace: await cli(['keys', 'list', '--workspace', 'ws_nope']),
      revokeUnknownKey: await cli(['keys', 'revoke', '--workspace', workspaceId, '--key-id', 'key_nope']),
    };
    for (const [name, run] of Object.entries(runs)) {
      expect(run.code, name).to.equal(1);
      expect(run.stdout, name).to.equal('');
      expect(run.stderr, name).to.match(/^error: /);
    }
    expect(runs.badScope.stderr).to.contain('error: --scopes (item 2): ');
    expect(runs.pastExpiry.stderr).to.equal('error: --expires-at: must be in the future\n');
    for (const run of Object.values(runs)) expect(run.stderr).not.to.contain('option.');
    expect(runs.unknownWorkspace.stderr).to.contain('No workspace ws_01JD2Z3K4M5N6P7Q8R9S0T1V2W');
  });

  it('keys create --help lists every scope', async () => {
    const help = await cli(['keys', 'create', '--help']);
    expect(help.code).to.equal(0);
    for (const scope of SCOPES) expect(help.stdout).to.contain(scope);
  });

  it('names a missing required option', async () => {
    const run = await cli(['keys', 'list']);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain("required option '--workspace <id>' not specified");
  });

  it('names the variable when the configuration is invalid', async () => {
    const child = await runCli(['workspaces', 'list'], { env: { DATABASE_URL: 'mysql://nope' } });
    expect(child.code).to.equal(1);
    expect(child.stderr).to.contain('DATABASE_URL');
  });
});

describe('CLI entry points', function () {
  this.timeout(60_000);

  it('the switchboard bin runs on a Node that cannot run TypeScript, handing over to the bundled Node 24', async () => {
    // --no-experimental-strip-types makes this Node like Node 20 for our purpose: `node bin/cli.ts`
    // fails with ERR_UNKNOWN_FILE_EXTENSION, while the bin entry works.
    const oldNode = (script: string, args: string[]) => {
      const child = spawn(
        process.execPath,
        ['--no-experimental-strip-types', path.join(ROOT, script), ...args],
        {
          cwd: ROOT,
          env: cliEnv(),
        },
      );
      child.stdin.end();
      return collect(child).done;
    };
    const direct = await oldNode('bin/cli.ts', ['migrate']);
    expect(direct.stderr).to.contain('ERR_UNKNOWN_FILE_EXTENSION');
    const viaBin = await oldNode('bin/switchboard.js', ['migrate', '--json']);
    expect(viaBin.code, viaBin.stderr).to.equal(0);
    expect(JSON.parse(viaBin.stdout)).to.deep.equal({ applied: [] });
    const failing = await oldNode('bin/switchboard.js', ['keys', 'list']);
    expect(failing.code).to.equal(1);
    expect(failing.stderr).to.contain("required option '--workspace <id>' not specified");
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.bin).to.deep.equal({ switchboard: 'bin/switchboard.js' });
  });

  it('`npm run -s cli -- … --json` and `npx switchboard … --json` print only the JSON on stdout', async () => {
    const env = cliEnv({ HOME: process.env.HOME ?? ROOT, npm_config_update_notifier: 'false' });
    for (const [command, args] of [
      ['npm', ['run', '-s', 'cli', '--', 'migrate', '--json']],
      ['npx', ['--offline', 'switchboard', 'migrate', '--json']],
    ] as const) {
      const child = spawn(command, args, { cwd: ROOT, env });
      child.stdin.end();
      const run = await collect(child).done;
      expect(run.code, `${command}: ${run.stderr}`).to.equal(0);
      expect(JSON.parse(run.stdout), command).to.deep.equal({ applied: [] });
    }
  });
});
