// Migration 0030 reshapes keys and foreign keys (see distributionKeys.test.ts); this holds it to
// keeping what each foreign key does: same tables, same action on delete, same deferral.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { MIGRATIONS_DIR, migrate } from '../../src/db/migrate.ts';
import { server } from '../support/server.ts';

async function freshDatabase() {
  const name = `keys_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server().databaseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(server().databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Migration files before `version`, in a directory of their own. */
function migrationsBefore(version: string) {
  const directory = mkdtempSync(path.join(tmpdir(), 'switchboard-sql-'));
  for (const file of readdirSync(MIGRATIONS_DIR).filter((name) => name < version))
    cpSync(path.join(MIGRATIONS_DIR, file), path.join(directory, file));
  return directory;
}

/** Each foreign key as `table → referenced: on delete <action>` (its columns change: 0030 adds workspace_id). */
async function foreignKeys(client: pg.Client) {
  const result = await client.query<{ key: string }>(`
    select conrelid::regclass || ' → ' || confrelid::regclass || ': on delete ' || confdeltype::text
      || case when condeferrable then ' deferrable' else '' end as key
    from pg_constraint where contype = 'f' and connamespace = 'public'::regnamespace
      and conrelid::regclass::text <> 'events' and conparentid = 0
    order by 1`);
  return result.rows.map((row) => row.key);
}

describe('the migration to keys led by workspace_id', () => {
  it('keeps every foreign key between the same tables, with the same action on delete', async () => {
    const url = await freshDatabase();
    await migrate(url, migrationsBefore('0030'));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const before = await foreignKeys(client);
      await migrate(url, migrationsBefore('0031'));
      expect(await foreignKeys(client)).to.deep.equal(before);
    } finally {
      await client.end();
    }
  });
});
