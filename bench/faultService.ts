// The processes bench/faults.ts breaks: PostgreSQL (embedded, in a temporary directory, or
// BENCH_DATABASE_URL, which cannot be restarted from here), and the Procfile's `web` and `worker`
// as child processes (node bin/web.ts, node bin/worker.ts) that it SIGKILLs and starts again, as a
// Procfile platform restarts a crashed dyno. Setup goes through the HTTP API with a session.

import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateAll } from '../src/app/runtime.ts';
import { config } from '../src/config.ts';
import { type EmbeddedDatabase, freePort, startEmbeddedDatabase } from '../src/db/embedded.ts';
import { Api } from './ingestSetup.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The bench's settings beside the defaults: shorter leases and expiries so that recovery from a
 * killed worker takes seconds rather than the production minutes (bench/README.md says which).
 */
export const FAULT_SETTINGS = {
  WEBHOOK_TIMEOUT_MS: '3000',
  WEBHOOK_LEASE_MS: '5000',
  MESSAGE_SEND_LEASE_MS: '10000',
  CAMPAIGN_STEP_EXPIRE_MS: '10000',
  JOB_SUPERVISE_MS: '5000',
};

export class Database {
  url = '';
  private embedded: EmbeddedDatabase | undefined;
  private readonly options: { dataDir: string; port: number; persistent: boolean };
  constructor(dataDir: string, port: number) {
    this.options = { dataDir, port, persistent: true };
  }
  get restartable() {
    return !process.env.BENCH_DATABASE_URL;
  }
  async start() {
    if (process.env.BENCH_DATABASE_URL) this.url = process.env.BENCH_DATABASE_URL;
    else {
      this.embedded = await startEmbeddedDatabase(this.options);
      this.url = this.embedded.url;
    }
  }
  /** Fast shutdown (SIGINT to the postmaster: open connections are terminated). */
  async stop() {
    await this.embedded?.stop();
    this.embedded = undefined;
  }
  static async create(dataDir: string) {
    const database = new Database(dataDir, await freePort());
    await database.start();
    await migrateAll(database.url, config());
    return database;
  }
}

/** One Procfile process, started again by `restart` as the platform would after a crash. */
export class ServiceProcess {
  child: ChildProcess | undefined;
  private readonly script: string;
  private readonly env: Record<string, string>;
  private readonly logFile: string;
  constructor(script: string, env: Record<string, string>, logFile: string) {
    this.script = script;
    this.env = env;
    this.logFile = logFile;
  }
  get pid() {
    return this.child?.pid;
  }
  get alive() {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }
  start() {
    const log = openSync(this.logFile, 'a');
    this.child = spawn(process.execPath, [path.join(ROOT, this.script)], {
      cwd: ROOT,
      stdio: ['ignore', log, log],
      env: { PATH: process.env.PATH ?? '', ...this.env },
    });
  }
  async kill(signal: NodeJS.Signals) {
    const child = this.child;
    if (!child || !this.alive) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}

export type Service = {
  origin: string;
  database: Database;
  web: ServiceProcess;
  worker: ServiceProcess;
  /** Resolves once the web process answers /api/health (any status), or rejects after `ms`. */
  webAnswers: (ms?: number) => Promise<void>;
  stop: () => Promise<void>;
};

export async function startService(dataDir: string): Promise<Service> {
  const database = await Database.create(dataDir);
  const port = await freePort();
  const env = {
    NODE_ENV: 'development', // production refuses the private (loopback) receivers used here
    LOG_LEVEL: 'warn',
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: String(port),
    SESSION_SECRET: 'fault-bench-session-secret-0123456789abcdef',
    ENCRYPTION_KEY: 'b'.repeat(64),
    ALLOW_PRIVATE_TARGETS: 'true',
    ...FAULT_SETTINGS,
  };
  const web = new ServiceProcess('bin/web.ts', env, path.join(dataDir, 'web.log'));
  const worker = new ServiceProcess('bin/worker.ts', env, path.join(dataDir, 'worker.log'));
  const origin = `http://127.0.0.1:${port}`;
  const webAnswers = async (ms = 30_000) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      try {
        await (await fetch(`${origin}/api/health`)).arrayBuffer();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    throw new Error(`the web process did not answer within ${ms} ms (see ${dataDir}/web.log)`);
  };
  web.start();
  worker.start();
  await webAnswers();
  return {
    origin,
    database,
    web,
    worker,
    webAnswers,
    stop: async () => {
      await Promise.all([web.kill('SIGTERM'), worker.kill('SIGTERM')]);
      await database.stop();
    },
  };
}

/** The API as an ADMIN with a session cookie (development: the cookie is not Secure). */
export class Admin extends Api {
  workspaceId = '';
  call(method: string, path: string, body?: unknown) {
    return this.request(method, path, body);
  }
  /** `path` under the current workspace. */
  post(path: string, body?: unknown) {
    return this.call('POST', `/api/workspaces/${this.workspaceId}${path}`, body);
  }
  async signUp() {
    const email = `fault.${Date.now()}@example.com`;
    await this.call('POST', '/api/auth/register', {
      name: 'Bench',
      email,
      password: 'correct horse battery',
    });
    await this.call('POST', '/api/auth/signin', { email, password: 'correct horse battery' });
  }
  /** A new workspace (made current) and an API key of it that may ingest events. */
  async workspace(name: string) {
    this.workspaceId = (await this.call('POST', '/api/workspaces', { name })).id;
    const { key } = await this.post('/keys', { name: 'load', scopes: ['events:write'] });
    return { workspaceId: this.workspaceId, apiKey: key as string };
  }
  /** Contacts made by ingesting one `seed` event each, 1,000 a request. */
  async seedContacts(emails: string[]) {
    for (let offset = 0; offset < emails.length; offset += 1000) {
      const events = emails.slice(offset, offset + 1000).map((email) => ({ type: 'seed', email }));
      await this.post('/events/batch', { events });
    }
  }
}
