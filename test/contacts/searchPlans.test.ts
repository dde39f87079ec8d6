// The console's contact list at a million contacts (bench:console measures it): a whole email is
// looked up by the trigrams of its part up to the @, not by those of the domain nearly every
// contact shares; a segment filter alone is counted on the members' own index; a contact is found
// by its id on the key; a score range is counted on the score index (sql/0056).
import { expect } from 'chai';
import { z } from 'zod';
import { findContactQuery } from '../../src/contacts/queries.ts';
import {
  type ContactSearch,
  contactCountQuery,
  contactSearchQuery,
  countContactsCapped,
  searchContacts,
} from '../../src/contacts/searchQueries.ts';
import { sql, type Tx } from '../../src/db/pool.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { inRolledBack } from '../support/helpers.ts';

async function explain(
  tx: Tx,
  query: ReturnType<typeof contactSearchQuery | typeof contactCountQuery | typeof findContactQuery>,
) {
  const lines = await tx.anyFirst({
    ...query,
    parser: z.object({ 'QUERY PLAN': z.string() }),
    sql: `explain ${query.sql}`,
  } as unknown as ReturnType<typeof contactSearchQuery>);
  return lines.map(String).join('\n');
}

function plan(tx: Tx, workspaceId: string, search: ContactSearch) {
  return explain(tx, contactSearchQuery(workspaceId, search, { sort: 'newest', after: null, limit: 51 }));
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
      const text = await plan(tx, workspaceId, { q: 'Ann.Lee@Example.com' });
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

  it('counts a segment filter alone on the members’ index, not among the contacts, and counts right', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    await inRolledBack(async (tx) => {
      await contacts(tx, workspaceId);
      await tx.query(sql.unsafe`insert into segments (workspace_id, id, name, rules, status)
        values (${workspaceId}, ${`${workspaceId}_seg`}, 'Some', '{"event": "x"}', 'ready')`);
      await tx.query(sql.unsafe`insert into segment_memberships (workspace_id, segment_id, contact_id)
        select ${workspaceId}, ${`${workspaceId}_seg`}, ${workspaceId} || '_ct_' || n from generate_series(1, 30) as n`);
      const segment = { segmentId: `${workspaceId}_seg` };
      const text = await explain(tx, contactCountQuery(workspaceId, segment, 'newest'));
      expect(text).to.contain('segment_memberships');
      expect(text).to.not.match(/ on contacts /);
      expect(await countContactsCapped(tx, workspaceId, segment, 'newest')).to.equal(30);
      expect(await countContactsCapped(tx, workspaceId, { ...segment, q: 'c1' }, 'newest')).to.equal(11);
    });
  });

  it('finds a contact by its id on the key, whether or not the id is a merged-away one', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    await inRolledBack(async (tx) => {
      await contacts(tx, workspaceId);
      const text = await explain(tx, findContactQuery(workspaceId, `${workspaceId}_ct_7`));
      // Not a filter evaluated for every contact of the workspace (a scan of it).
      expect(text).to.match(/Index (Only )?Scan using contacts_pkey[\s\S]*Index Cond: .*\(id = /);
      expect(text).to.not.match(/Filter: \(id = /);
    });
  });

  it('counts a score range without 0 on the non-zero scores’ index, not by reading every contact', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    await inRolledBack(async (tx) => {
      await contacts(tx, workspaceId);
      await tx.query(sql.unsafe`update contacts set lead_score = (split_part(id, '_ct_', 2)::int * 7919) % 101
        where workspace_id = ${workspaceId}`);
      await tx.query(sql.unsafe`analyze contacts, contact_scores`);
      const range = { scoreMin: 50, scoreMax: 50 };
      const text = await explain(tx, contactCountQuery(workspaceId, range, 'newest'));
      expect(text).to.match(/(Index (Only )?Scan using|Bitmap Index Scan on) contact_scores_score_idx/);
      expect(text).to.not.match(/ on contacts /);
      const exact = (where: ReturnType<typeof sql.fragment>) =>
        tx.oneFirst(sql.type(z.object({ n: z.number() }))`select count(*)::int as n from contacts
          where workspace_id = ${workspaceId} and ${where}`);
      expect(await countContactsCapped(tx, workspaceId, range, 'newest')).to.equal(
        await exact(sql.fragment`lead_score = 50`),
      );
      // A score back to 0 leaves the range; a range with 0 counts the unscored contacts too.
      await tx.query(
        sql.unsafe`update contacts set lead_score = 0 where workspace_id = ${workspaceId} and lead_score = 50`,
      );
      expect(await countContactsCapped(tx, workspaceId, range, 'newest')).to.equal(0);
      expect(await countContactsCapped(tx, workspaceId, { scoreMax: 0 }, 'newest')).to.equal(
        await exact(sql.fragment`lead_score <= 0`),
      );
      const rows = await searchContacts(
        tx,
        workspaceId,
        { scoreMin: 90, q: 'name 1' },
        { sort: 'newest', after: null, limit: 500 },
      );
      expect(rows.length).to.be.above(0);
      expect(rows.every((row) => row.lead_score >= 90 && row.first_name?.startsWith('Name 1'))).to.equal(
        true,
      );
      expect(rows.length).to.equal(await exact(sql.fragment`lead_score >= 90 and first_name like 'Name 1%'`));
    });
  });
});
