// The migrator, against fresh databases on the test server and migration files of its own, so
// these tests depend on no feature's schema.
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { MigrationError, migrate } from '../../src/db/migrate.ts';
import { server } from '../support/server.ts';

/** A new, empty database on the test server; returns its URL. */
async function freshDatabase(): Promise<string> {
  const name = `migrate_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: server().databaseUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(server().databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function migrationsDir(files: Record<string, string>): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'switchboard-sql-'));
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(directory, file), text);
  return directory;
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

const FIRST = { '0001_things.sql': 'create table things (id int primary key);' };

describe('migrations', () => {
  it('applies pending files in order, records them with checksums, and is idempotent', async () => {
    const url = await freshDatabase();
    const directory = migrationsDir({
      ...FIRST,
      '0002_more.sql': 'alter table things add column name text;',
    });
    expect(await migrate(url, directory)).to.deep.equal(['0001_things.sql', '0002_more.sql']);
    expect(await migrate(url, directory)).to.deep.equal([]);
    const rows = await query<{ version: number; checksum: string }>(
      url,
      'select version, checksum from schema_migrations order by version',
    );
    expect(rows.map((row) => row.version)).to.deep.equal([1, 2]);
    expect(rows[0].checksum).to.match(/^[0-9a-f]{64}$/);
  });

  it('refuses an applied migration that was edited since, with a message that says what to do', async () => {
    const url = await freshDatabase();
    const directory = migrationsDir(FIRST);
    await migrate(url, directory);
    appendFileSync(path.join(directory, '0001_things.sql'), '\n-- a harmless-looking edit\n');
    const error = await migrate(url, directory).catch((caught) => caught);
    expect(error).to.be.instanceOf(MigrationError);
    expect(error.message).to.contain('0001_things.sql was edited after it was applied');
    expect(error.message).to.contain('add a new migration');
  });

  it('rolls back a failing migration entirely and names it', async () => {
    const url = await freshDatabase();
    const directory = migrationsDir({
      ...FIRST,
      '0002_broken.sql': 'create table half (id int); select * from no_such_table;',
    });
    const error = await migrate(url, directory).catch((caught) => caught);
    expect(error).to.be.instanceOf(MigrationError);
    expect(error.message).to.contain('0002_broken.sql failed').and.contain('no_such_table');
    const tables = await query<{ name: string }>(
      url,
      "select tablename as name from pg_tables where schemaname = 'public'",
    );
    expect(tables.map((table) => table.name).sort()).to.deep.equal(['schema_migrations', 'things']);
  });

  it('is safe when several processes migrate at once (advisory lock)', async () => {
    const url = await freshDatabase();
    const directory = migrationsDir({
      ...FIRST,
      '0002_slow.sql': 'select pg_sleep(0.3); create table slow (id int);',
    });
    const results = await Promise.all([
      migrate(url, directory),
      migrate(url, directory),
      migrate(url, directory),
    ]);
    expect(results.flat().sort()).to.deep.equal(['0001_things.sql', '0002_slow.sql']);
    const rows = await query<{ count: string }>(url, 'select count(*) from schema_migrations');
    expect(Number(rows[0].count)).to.equal(2);
  });

  it('applies the service’s own migrations to an empty database', async () => {
    const url = await freshDatabase();
    const applied = await migrate(url);
    expect(applied[0]).to.equal('0001_accounts.sql');
    const tables = await query<{ name: string }>(
      url,
      "select tablename as name from pg_tables where schemaname = 'public'",
    );
    expect(tables.map((table) => table.name)).to.include.members([
      'users',
      'workspaces',
      'memberships',
      'sessions',
      'api_keys',
    ]);
  });
});
