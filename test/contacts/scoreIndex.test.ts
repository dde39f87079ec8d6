// contact_scores (sql/0056) holds exactly the workspace's non-zero lead scores, whatever wrote them:
// scoring at ingest, a contact created with a score by import, a merge adding two scores, decay
// bringing one back to 0, a contact deleted. The console's score range filter reads it.
import { expect } from 'chai';
import { z } from 'zod';
import { runDecay } from '../../src/scoring/decay.ts';
import { createContact, track, workspace } from '../events/support.ts';
import { sql, testDb } from '../support/helpers.ts';
import { server } from '../support/server.ts';

/** Contacts whose score and kept score disagree (either missing from the other). */
async function disagreements(workspaceId: string) {
  return testDb().anyFirst(sql.type(z.object({ id: z.string() }))`
    select coalesce(c.id, s.contact_id) as id
    from (select id, lead_score from contacts where workspace_id = ${workspaceId} and lead_score <> 0) c
    full join (select contact_id, lead_score from contact_scores where workspace_id = ${workspaceId}) s
      on s.contact_id = c.id and s.lead_score = c.lead_score
    where c.id is null or s.contact_id is null`);
}

async function keptScores(workspaceId: string) {
  return testDb().anyFirst(sql.type(z.object({ lead_score: z.number() }))`
    select lead_score from contact_scores where workspace_id = ${workspaceId} order by lead_score`);
}

describe('contacts: the non-zero scores kept beside them', () => {
  it('follows scoring, merges, decay and deletion', async () => {
    const ctx = await workspace({ listening: false });
    const rule = await ctx.admin.post(`${ctx.base}/scoring-rules`, {
      name: 'purchase',
      eventType: 'purchase',
      points: 5,
      repeatable: true,
    });
    expect(rule.status, rule.text).to.equal(201);
    const [ada, bob, cy] = await Promise.all(
      ['ada', 'bob', 'cy'].map(
        async (name) => (await createContact(ctx.admin, ctx.base, { email: `${name}@k.test` })).id,
      ),
    );
    expect(await keptScores(ctx.workspaceId)).to.deep.equal([]);

    for (const contactId of [ada, bob, bob])
      await track(ctx.admin, ctx.base, { type: 'purchase', contactId });
    expect(await keptScores(ctx.workspaceId)).to.deep.equal([5, 10]);
    expect(await disagreements(ctx.workspaceId)).to.deep.equal([]);

    // A merge adds the secondary's score to the primary's and deletes the secondary.
    const merged = await ctx.admin.post(`${ctx.base}/contacts/merge`, {
      primaryContactId: ada,
      secondaryContactId: bob,
    });
    expect(merged.status, merged.text).to.equal(200);
    expect(await keptScores(ctx.workspaceId)).to.deep.equal([15]);

    // Decay brings scores towards 0; at 0 the row goes.
    await ctx.admin.put(`${ctx.base}/scoring-settings`, { decay: { points: 15, every: 'P1D' } });
    await testDb().query(sql.typeAlias(
      'void',
    )`update scoring_settings set last_decay_at = now() - interval '1 day 1 hour'
      where workspace_id = ${ctx.workspaceId}`);
    await runDecay(server().context, ctx.workspaceId);
    expect(await keptScores(ctx.workspaceId)).to.deep.equal([]);

    await track(ctx.admin, ctx.base, { type: 'purchase', contactId: cy });
    expect(await keptScores(ctx.workspaceId)).to.deep.equal([5]);
    expect((await ctx.admin.delete(`${ctx.base}/contacts/${cy}`)).status).to.equal(204);
    expect(await keptScores(ctx.workspaceId)).to.deep.equal([]);
    expect(await disagreements(ctx.workspaceId)).to.deep.equal([]);
  });
});
