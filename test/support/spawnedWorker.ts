// A worker process of its own (bin/worker.ts) on a scratch database created on the test server,
// for tests that SIGKILL it mid-work: only the spawned workers touch that database.

import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabasePool } from 'slonik';
import { migrateAll } from '../../src/app/runtime.ts';
import { config } from '../../src/config.ts';
import { createDatabasePool, sql } from '../../src/db/pool.ts';
import { server } from './server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function startWorker(databaseUrl: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [path.join(ROOT, 'bin/worker.ts')], {
    cwd: ROOT,
    stdio: 'ignore',
    // DATA_DIR: the test server's, whose generated ENCRYPTION_KEY sealed the endpoints' secrets.
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      DATA_DIR: process.env.DATA_DIR,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      ...env,
    },
  });
}

export function exited(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve) =>
    child.exitCode !== null || child.signalCode ? resolve(null) : child.once('exit', resolve),
  );
}

/** A migrated database of its own, on the test server. */
export async function scratchDatabase() {
  const name = `crash_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  await server().context.db.query(sql.unsafe`create database ${sql.identifier([name])}`);
  const url = new URL(server().databaseUrl);
  url.pathname = `/${name}`;
  await migrateAll(url.toString(), config());
  return { name, url: url.toString() };
}

export async function dropScratchDatabase(name: string) {
  await server().context.db.query(sql.unsafe`drop database ${sql.identifier([name])} with (force)`);
}

export type ScratchWorkers = { db: DatabasePool; url: string; workers: ChildProcess[] };

/**
 * Mocha hooks for a suite that kills workers: a scratch database (and a small pool on it) before,
 * and after, every spawned worker killed and the database dropped. Fields are set by `before`.
 */
export function scratchWorkerSuite(): ScratchWorkers {
  const scratch = { workers: [] } as unknown as ScratchWorkers & { name: string };
  before(async () => {
    const database = await scratchDatabase();
    Object.assign(scratch, database, { db: await createDatabasePool(database.url, { maxPoolSize: 3 }) });
  });
  after(async () => {
    for (const worker of scratch.workers) worker.kill('SIGKILL');
    await Promise.all(scratch.workers.map(exited));
    await scratch.db?.end();
    if (scratch.name) await dropScratchDatabase(scratch.name);
  });
  return scratch;
}
