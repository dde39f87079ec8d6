// Migration 0030 reshapes keys and foreign keys (see distributionKeys.test.ts); this holds it to
// keeping what each foreign key does: same tables, same action on delete, same deferral.
import { expect } from 'chai';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.ts';
import { emptyDatabase, migrationsBefore } from '../support/partialMigrations.ts';

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
    const url = await emptyDatabase('keys');
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
