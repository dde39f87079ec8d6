// The score distribution: a histogram of the workspace's lead scores, every bucket from the lowest
// score to the highest, only this workspace's contacts.
import { expect } from 'chai';
import { recountStaleDistributions, scoreDistribution } from '../../src/scoring/distribution.ts';
import { createContact, workspace } from '../events/support.ts';
import { setLeadScore } from '../segments/helpers.ts';
import { expectDocumented } from '../support/documented.ts';
import { expectProblem } from '../support/factories.ts';
import { ISO_MS, sql, testDb } from '../support/helpers.ts';

const PATH = '/api/workspaces/{workspaceId}/scoring/distribution';

describe('scoring: distribution', () => {
  it('is empty without contacts', async () => {
    const ctx = await workspace({ listening: false });
    const response = await ctx.admin.get(`${ctx.base}/scoring/distribution`);
    expect(response.status, response.text).to.equal(200);
    await expectDocumented('get', PATH, response);
    const { countedAt, ...figures } = response.body;
    expect(figures).to.deep.equal({ total: 0, zero: 0, min: null, max: null, buckets: [] });
    expect(countedAt).to.match(ISO_MS);
    expect(Date.now() - Date.parse(countedAt)).to.be.below(60_000);
  });

  it('buckets the scores in round widths, the empty buckets between included', async () => {
    const ctx = await workspace({ listening: false });
    const other = await workspace({ listening: false });
    await createContact(other.admin, other.base, { email: 'far@away.test' }).then((c) =>
      setLeadScore(c.id, 5000),
    );
    const scores = [-15, 0, 0, 0, 3, 7, 12, 12, 80];
    for (const [n, score] of scores.entries()) {
      const contact = await createContact(ctx.admin, ctx.base, { email: `s${n}@d.test` });
      await setLeadScore(contact.id, score);
    }
    const response = await ctx.admin.get(`${ctx.base}/scoring/distribution`);
    await expectDocumented('get', PATH, response);
    expect(response.body).to.include({ total: 9, zero: 3, min: -15, max: 80 });
    // 96 scores from -15 to 80 in at most 20 buckets: width 5, from -15.
    expect(response.body.buckets).to.have.length(20);
    expect(response.body.buckets[0]).to.deep.equal({ from: -15, to: -11, count: 1 });
    expect(response.body.buckets[3]).to.deep.equal({ from: 0, to: 4, count: 4 });
    expect(response.body.buckets[4]).to.deep.equal({ from: 5, to: 9, count: 1 });
    expect(response.body.buckets[5]).to.deep.equal({ from: 10, to: 14, count: 2 });
    expect(response.body.buckets.at(-1)).to.deep.equal({ from: 80, to: 84, count: 1 });
    const counted = response.body.buckets.reduce(
      (sum: number, bucket: { count: number }) => sum + bucket.count,
      0,
    );
    expect(counted).to.equal(9);
  });

  it('needs segments:read, as the scoring rules do', async () => {
    const ctx = await workspace({ listening: false });
    expectProblem(
      await (await ctx.withScopes(['contacts:read'])).get(`${ctx.base}/scoring/distribution`),
      403,
    );
    expect(
      (await (await ctx.withScopes(['segments:read'])).get(`${ctx.base}/scoring/distribution`)).status,
    ).to.equal(200);
  });

  it('counts a workspace of up to the limit live at every request', async () => {
    const ctx = await workspace({ listening: false });
    const contact = await createContact(ctx.admin, ctx.base, { email: 'live@d.test' });
    await setLeadScore(contact.id, 5);
    expect((await scoreDistribution(testDb(), ctx.workspaceId, 1)).max).to.equal(5);
    await setLeadScore(contact.id, 9);
    expect((await scoreDistribution(testDb(), ctx.workspaceId, 1)).max).to.equal(9);
  });

  it('serves a larger workspace its stored count with the time taken, recounted when stale', async () => {
    const ctx = await workspace({ listening: false });
    for (const [n, score] of [3, 3, 4].entries()) {
      const contact = await createContact(ctx.admin, ctx.base, { email: `big${n}@d.test` });
      await setLeadScore(contact.id, score);
    }
    const first = await scoreDistribution(testDb(), ctx.workspaceId, 2);
    expect(first).to.include({ total: 3, min: 3, max: 4 });
    const late = await createContact(ctx.admin, ctx.base, { email: 'late@d.test' });
    await setLeadScore(late.id, 50);
    // Served the count taken before the change, and when it was taken.
    const served = await scoreDistribution(testDb(), ctx.workspaceId, 2);
    expect(served).to.deep.equal(first);
    // The job takes again only counts older than its age.
    await recountStaleDistributions(testDb(), 60_000);
    expect(await scoreDistribution(testDb(), ctx.workspaceId, 2)).to.deep.equal(first);
    await testDb().query(sql.typeAlias('void')`
      update score_distributions set counted_at = counted_at - interval '2 minutes'
      where workspace_id = ${ctx.workspaceId}`);
    await recountStaleDistributions(testDb(), 60_000);
    const recounted = await scoreDistribution(testDb(), ctx.workspaceId, 2);
    expect(recounted).to.include({ total: 4, max: 50 });
    expect(Date.parse(recounted.countedAt)).to.be.above(Date.parse(first.countedAt));
  });
});
