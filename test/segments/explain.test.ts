// "Why": a contact's membership of a segment explained condition by condition, the tree kept as
// written, what each condition saw, and whether the stored membership agrees.
import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { createContact, track, workspace } from '../events/support.ts';
import { expectDocumented } from '../support/documented.ts';
import { expectProblem } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { createSegment, setLeadScore } from './helpers.ts';

const PATH = '/api/workspaces/{workspaceId}/contacts/{contactId}/segments/{segmentId}/explain';

const RULE = {
  all: [
    { field: 'email', op: 'ends_with', value: '@acme.test' },
    { any: [{ attribute: 'plan', op: 'eq', value: 'pro' }, { leadScore: { gte: 50 } }] },
    { not: { event: 'refund', within: 'P30D' } },
    { event: 'purchase', count: { gte: 2 }, within: 'P30D' },
  ],
};

describe('segments: explain a membership', () => {
  let ctx: Awaited<ReturnType<typeof workspace>>;
  let segmentId: string;
  const ids: Record<string, string> = {};
  const explain = (contactId: string, segment = segmentId, client = ctx.admin) =>
    client.get(`${ctx.base}/contacts/${contactId}/segments/${segment}/explain`);

  before(async () => {
    ctx = await workspace({ listening: false });
    ids.ada = (
      await createContact(ctx.admin, ctx.base, { email: 'ada@acme.test', attributes: { plan: 'free' } })
    ).id;
    ids.bob = (
      await createContact(ctx.admin, ctx.base, { email: 'bob@other.test', attributes: { plan: 'pro' } })
    ).id;
    await setLeadScore(ids.ada, 70);
    for (const contactId of [ids.ada, ids.ada, ids.ada, ids.bob])
      await track(ctx.admin, ctx.base, { type: 'purchase', contactId });
    segmentId = (await createSegment(ctx.admin, ctx.base, RULE)).id;
  });

  it('shows each condition with what it saw and whether it held, the nesting kept', async () => {
    const response = await explain(ids.ada);
    expect(response.status, response.text).to.equal(200);
    await expectDocumented('get', PATH, response);
    expect(response.body).to.include({
      segmentId,
      contactId: ids.ada,
      matches: true,
      member: true,
      agrees: true,
      refreshPending: false,
      note: null,
      status: 'ready',
    });
    expect(response.body.enteredAt).to.be.a('string');
    expect(response.body.rule).to.equal(
      'email ends with @acme.test and (attribute plan is pro or lead score is at least 50) and ' +
        'not (at least 1 "refund" event in the last 30 days) and at least 2 "purchase" events in the last 30 days',
    );
    const [email, either, notRefund, purchases] = response.body.explanation.children;
    expect(response.body.explanation).to.include({ kind: 'all', passed: true });
    expect(email).to.deep.equal({
      kind: 'condition',
      passed: true,
      condition: RULE.all[0],
      description: 'email ends with @acme.test',
      seen: 'ada@acme.test',
      seenCapped: false,
    });
    expect(either).to.include({ kind: 'any', passed: true });
    expect(
      either.children.map((child: { seen: unknown; passed: boolean }) => [child.seen, child.passed]),
    ).to.deep.equal([
      ['free', false],
      [70, true],
    ]);
    expect(notRefund).to.include({ kind: 'not', passed: true });
    expect(notRefund.children[0]).to.include({ kind: 'condition', passed: false, seen: 0 });
    expect(purchases).to.include({ kind: 'condition', passed: true, seen: 3 });
  });

  it('explains a contact left out, naming the conditions that failed', async () => {
    const response = await explain(ids.bob);
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.include({ matches: false, member: false, agrees: true, enteredAt: null });
    const [email, either, , purchases] = response.body.explanation.children;
    expect(email).to.include({ passed: false, seen: 'bob@other.test' });
    expect(either.children[0]).to.include({ passed: true, seen: 'pro' });
    expect(either.children[1]).to.include({ passed: false, seen: 0 });
    expect(purchases).to.include({ passed: false, seen: 1 });
  });

  it('says a refresh is pending when the stored membership disagrees with the rule', async () => {
    await server().context.db.query(sql.typeAlias('void')`
      insert into segment_memberships (workspace_id, segment_id, contact_id) values (${ctx.workspaceId}, ${segmentId}, ${ids.bob})
    `);
    try {
      const response = await explain(ids.bob);
      await expectDocumented('get', PATH, response);
      expect(response.body).to.include({ matches: false, member: true, agrees: false, refreshPending: true });
      expect(response.body.note).to.match(/time window/);
    } finally {
      await server().context.db.query(sql.typeAlias('void')`
        delete from segment_memberships where segment_id = ${segmentId} and contact_id = ${ids.bob}
      `);
    }
  });

  it('needs contacts:read, as reading a contact does', async () => {
    const segmentsOnly = await ctx.withScopes(['segments:read']);
    expectProblem(await explain(ids.ada, segmentId, segmentsOnly), 403);
    const contactsReader = await ctx.withScopes(['contacts:read']);
    expect((await explain(ids.ada, segmentId, contactsReader)).status).to.equal(200);
  });

  it("answers 404 for another workspace's contact or segment, and unknown ids", async () => {
    const other = await workspace({ listening: false });
    const stranger = await createContact(other.admin, other.base, { email: 'eve@acme.test' });
    const theirs = await createSegment(other.admin, other.base, { field: 'email', op: 'exists' });
    for (const response of [
      await explain(stranger.id),
      await explain(ids.ada, theirs.id),
      await explain('ct_unknown'),
      await explain(ids.ada, 'seg_unknown'),
    ]) {
      expectProblem(response, 404);
      await expectDocumented('get', PATH, response);
    }
  });
});
