// The message log at a million messages (bench:console measures it): filtered by a campaign, and by
// a step of it, the first page is read in the log's order on the campaign's own index (sql/0057),
// not found by walking every newer message of the workspace, and it is the right page.
import { expect } from 'chai';
import { z } from 'zod';
import { sql, type Tx } from '../../src/db/pool.ts';
import { listMessagesAfter, messagesAfterQuery } from '../../src/messages/queries.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { inRolledBack } from '../support/helpers.ts';

async function explain(tx: Tx, query: ReturnType<typeof messagesAfterQuery>) {
  const lines = await tx.anyFirst({
    ...query,
    parser: z.object({ 'QUERY PLAN': z.string() }),
    sql: `explain ${query.sql}`,
  } as unknown as ReturnType<typeof messagesAfterQuery>);
  return lines.map(String).join('\n');
}

/**
 * 3,000 messages over 30 days: an old campaign's 300 (its two steps alternating) in the first
 * three days, a current campaign's the rest of the time, one in ten a one-off.
 */
async function messages(tx: Tx, workspaceId: string) {
  await tx.query(sql.unsafe`insert into contacts (workspace_id, id, email)
    values (${workspaceId}, ${`${workspaceId}_ct`}, 'log@example.com')`);
  await tx.query(sql.unsafe`
    insert into messages (workspace_id, id, contact_id, channel, campaign_id, step_key, status, template, created_at)
    select ${workspaceId}, ${workspaceId} || '_msg_' || lpad(n::text, 5, '0'), ${`${workspaceId}_ct`}, 'email',
           case when n % 10 = 0 then null when n <= 330 then 'cmp_old' else 'cmp_now' end,
           case when n % 10 = 0 then null else (n % 2)::text end,
           'sent', '{"subject": "Hi"}', now() - interval '30 days' + n * interval '864 seconds'
    from generate_series(1, 3000) as n`);
  await tx.query(sql.unsafe`analyze messages`);
}

describe('message log plans (console)', () => {
  it('reads a campaign’s messages, and a step’s, newest first on the campaign’s index', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    await inRolledBack(async (tx) => {
      await messages(tx, workspaceId);
      // Walking the workspace's newest-first index from the top would pass 2,700 newer messages.
      await tx.query(sql.unsafe`set local enable_sort = off`);
      for (const filter of [{ campaignId: 'cmp_old' }, { campaignId: 'cmp_old', stepKey: '1' }]) {
        const page = { afterId: null, limit: 51 };
        const text = await explain(tx, messagesAfterQuery(workspaceId, filter, page));
        expect(text).to.match(/Index (Only )?Scan using messages_campaign_created_idx/);
        const rows = await listMessagesAfter(tx, workspaceId, filter, page);
        expect(rows).to.have.length(51);
        expect(rows.every((row) => row.campaign_id === 'cmp_old')).to.equal(true);
        if (filter.stepKey) expect(rows.every((row) => row.step_key === '1')).to.equal(true);
        const ids = rows.map((row) => row.id);
        expect(ids).to.deep.equal([...ids].sort().reverse());
        expect(ids[0]).to.equal(`${workspaceId}_msg_00329`);
      }
    });
  });
});
