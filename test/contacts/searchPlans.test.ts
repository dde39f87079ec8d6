// The console's contact list at a million contacts (bench:console measures it): a whole email is
// looked up by the trigrams of its part up to the @, not by those of the domain nearly every
// contact shares.
import { expect } from 'chai';
import { z } from 'zod';
import { type ContactSearch, contactSearchQuery, searchContacts } from '../../src/contacts/searchQueries.ts';
import { sql, type Tx } from '../../src/db/pool.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { inRolledBack } from '../support/helpers.ts';

async function plan(tx: Tx, workspaceId: string, search: ContactSearch, sort: 'newest') {
  const query = contactSearchQuery(workspaceId, search, { sort, after: null, limit: 51 });
  const lines = await tx.anyFirst({
    ...query,
    parser: z.object({ 'QUERY PLAN': z.string() }),
    sql: `explain ${query.sql}`,
  });
  return lines.join('\n');
}

async function contacts(tx: Tx, workspaceId: string) {
  await tx.query(sql.unsafe`
    insert into contacts (workspace_id, id, email, first_name)
    select ${workspaceId}, ${workspaceId} || '_ct_' || n, 'c' || n || '@example.com', 'Name ' || n
    from generate_series(1, 2000) as n`);
  await tx.query(sql.unsafe`analyze contacts`);
}

describe('contact list plans (console)', () => {
  it('looks a whole email up by the trigrams of its part up to the @, and still matches substrings', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    await inRolledBack(async (tx) => {
      await contacts(tx, workspaceId);
      await tx.query(sql.unsafe`insert into contacts (workspace_id, id, email) values
        (${workspaceId}, ${`${workspaceId}_jo`}, 'joann.lee@example.com'),
        (${workspaceId}, ${`${workspaceId}_org`}, 'ann.lee@example.org')`);
      const text = await plan(tx, workspaceId, { q: 'Ann.Lee@Example.com' }, 'newest');
      // The indexable pattern is the local part; the whole email is checked by strpos, which no index serves.
      expect(text).to.contain("~~ '%ann.lee@%'");
      expect(text).to.not.contain("~~ '%ann.lee@example.com%'");
      const found = await searchContacts(
        tx,
        workspaceId,
        { q: 'Ann.Lee@Example.com' },
        {
          sort: 'newest',
          after: null,
          limit: 51,
        },
      );
      expect(found.map((row) => row.email)).to.deep.equal(['joann.lee@example.com']);
    });
  });
});
