// A worker process of its own (bin/worker.ts) on a scratch database created on the test server,
// for tests that SIGKILL it mid-work: only the spawned workers touch that database.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateAll } from '../../src/app/runtime.ts';
import { sql } from '../../src/db/pool.ts';
import { server } from './server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function startWorker(databaseUrl: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [path.join(ROOT, 'bin/worker.ts')], {
    cwd: ROOT,
    stdio: 'ignore',
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env },
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
  await migrateAll(url.toString());
  return { name, url: url.toString() };
}

export async function dropScratchDatabase(name: string) {
  await server().context.db.query(sql.unsafe`drop database ${sql.identifier([name])} with (force)`);
}
