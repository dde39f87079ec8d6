// A segment's statistics: members, entries and exits per UTC day over 30 days (kept by the
// memberships' triggers, sql/0046), the rule in words, the refresh state.
import { expect } from 'chai';
import { createContact, workspace } from '../events/support.ts';
import { expectDocumented } from '../support/documented.ts';
import { eventually, expectProblem } from '../support/factories.ts';
import { createSegment, whenReady } from './helpers.ts';

const PATH = '/api/workspaces/{workspaceId}/segments/{segmentId}/stats';
const today = () => new Date().toISOString().slice(0, 10);

describe('segments: statistics', () => {
  let ctx: Awaited<ReturnType<typeof workspace>>;
  const stats = (segmentId: string, client = ctx.admin) =>
    client.get(`${ctx.base}/segments/${segmentId}/stats`);

  before(async () => {
    ctx = await workspace({ listening: false });
  });

  it('counts entries and exits per day as contacts come, go and the rule changes', async () => {
    const ids: string[] = [];
    for (const email of ['a@s.test', 'b@s.test', 'c@s.test', 'd@t.test'])
      ids.push((await createContact(ctx.admin, ctx.base, { email })).id);
    const segment = await createSegment(ctx.admin, ctx.base, {
      field: 'email',
      op: 'ends_with',
      value: '@s.test',
    });
    const first = await stats(segment.id);
    expect(first.status, first.text).to.equal(200);
    await expectDocumented('get', PATH, first);
    expect(first.body).to.include({
      segmentId: segment.id,
      count: 3,
      entered: 3,
      exited: 0,
      rule: 'email ends with @s.test',
    });
    expect(first.body.days).to.have.length(30);
    expect(first.body.days.at(-1)).to.deep.equal({ date: today(), entered: 3, exited: 0 });
    expect(first.body.days[0].date).to.equal(
      new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10),
    );
    expect(first.body.refresh).to.include({ status: 'ready', timeWindow: false, passInProgress: false });
    expect(first.body.refresh.computedAt).to.be.a('string');

    // Ingest: a new contact enters; a deleted one exits.
    await createContact(ctx.admin, ctx.base, { email: 'e@s.test' });
    expect((await ctx.admin.delete(`${ctx.base}/contacts/${ids[0]}`)).status).to.equal(204);
    // A change of rules: the compute job moves everyone.
    const patched = await ctx.admin.patch(`${ctx.base}/segments/${segment.id}`, {
      rules: { field: 'email', op: 'ends_with', value: '@t.test' },
    });
    expect(patched.status, patched.text).to.equal(200);
    await whenReady(ctx.admin, ctx.base, segment.id);
    const after = await eventually(async () => {
      const response = await stats(segment.id);
      return response.body.count === 1 ? response : null;
    });
    expect(after.body).to.include({ entered: 5, exited: 4, rule: 'email ends with @t.test' });
    expect(after.body.days.at(-1)).to.deep.equal({ date: today(), entered: 5, exited: 4 });
  });

  it('reports a time-window segment and its refresh date', async () => {
    const segment = await createSegment(ctx.admin, ctx.base, {
      event: 'purchase',
      count: { gte: 3 },
      within: 'P30D',
    });
    const response = await stats(segment.id);
    expect(response.body.rule).to.equal('at least 3 "purchase" events in the last 30 days');
    expect(response.body.refresh).to.include({ timeWindow: true, passInProgress: false });
    expect(response.body.refresh.refreshedThrough).to.be.a('string');
  });

  it("answers 404 for another workspace's segment and needs segments:read", async () => {
    const other = await workspace({ listening: false });
    const theirs = await createSegment(other.admin, other.base, { field: 'email', op: 'exists' });
    const response = await stats(theirs.id);
    expectProblem(response, 404);
    await expectDocumented('get', PATH, response);
    const mine = await createSegment(ctx.admin, ctx.base, { field: 'email', op: 'exists' });
    expectProblem(await stats(mine.id, await ctx.withScopes(['contacts:read'])), 403);
  });
});
