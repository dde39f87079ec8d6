// Forward-only SQL migrations from sql/NNNN_name.sql. Each runs in its own transaction and is
// recorded with a SHA-256 checksum; an applied file that was edited afterwards is refused. A
// session-level advisory lock makes concurrent starts (web + worker + release) safe.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sql');
const LOCK_KEY = 7_427_310_001; // arbitrary, constant: "switchboard migrations"

export type Migration = { version: number; name: string; file: string; sql: string; checksum: string };

export class MigrationError extends Error {}

export function readMigrations(directory = MIGRATIONS_DIR): Migration[] {
  const files = readdirSync(directory)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort();
  return files.map((file) => {
    const text = readFileSync(path.join(directory, file), 'utf8');
    return {
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      file,
      sql: text,
      checksum: createHash('sha256').update(text).digest('hex'),
    };
  });
}

type Applied = { version: number; checksum: string };

async function appliedMigrations(client: pg.Client): Promise<Map<number, Applied>> {
  await client.query(`create table if not exists schema_migrations (
    version integer primary key,
    name text not null,
    checksum text not null,
    applied_at timestamptz not null default now()
  )`);
  const result = await client.query<Applied>('select version, checksum from schema_migrations');
  return new Map(result.rows.map((row) => [row.version, row]));
}

function checkUnchanged(migration: Migration, applied: Applied): void {
  if (applied.checksum !== migration.checksum) {
    throw new MigrationError(
      `Migration ${migration.file} was edited after it was applied (checksum differs). ` +
        'Applied migrations are never edited: restore the file and add a new migration instead.',
    );
  }
}

/** Applies pending migrations; returns the files it applied. */
export async function migrate(databaseUrl: string, directory = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = readMigrations(directory);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const done: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    const applied = await appliedMigrations(client);
    for (const migration of migrations) {
      const previous = applied.get(migration.version);
      if (previous) {
        checkUnchanged(migration, previous);
        continue;
      }
      await applyOne(client, migration);
      done.push(migration.file);
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    await client.end();
  }
  return done;
}

async function applyOne(client: pg.Client, migration: Migration): Promise<void> {
  try {
    await client.query('begin');
    await client.query(migration.sql);
    await client.query('insert into schema_migrations (version, name, checksum) values ($1, $2, $3)', [
      migration.version,
      migration.name,
      migration.checksum,
    ]);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw new MigrationError(
      `Migration ${migration.file} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
