// A database migrated only up to some version, for tests of what a later migration does to the rows
// and keys it finds: an empty database on the test server and the migration files before a version.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MIGRATIONS_DIR } from '../../src/db/migrate.ts';
import { sql } from '../../src/db/pool.ts';
import { server } from './server.ts';

/** A new, empty database on the test server; returns its URL. */
export async function emptyDatabase(prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await server().context.db.query(sql.unsafe`create database ${sql.identifier([name])}`);
  const url = new URL(server().databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The migration files before `version` (e.g. '0030'), in a directory of their own. */
export function migrationsBefore(version: string): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'switchboard-sql-'));
  for (const file of readdirSync(MIGRATIONS_DIR).filter((name) => name < version))
    cpSync(path.join(MIGRATIONS_DIR, file), path.join(directory, file));
  return directory;
}
