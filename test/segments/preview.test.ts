// Previewing an unsaved rule: the exact count (or "more than" the cap), a sample of the newest
// matching contacts, nothing saved. Validation is the same as on creation (validation.test.ts).
import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { PREVIEW_COUNT_CAP } from '../../src/segments/preview.ts';
import { createContact, track, workspace } from '../events/support.ts';
import { expectDocumented } from '../support/documented.ts';
import { expectProblem } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { createSegment, setCreatedAt } from './helpers.ts';

const PATH = '/api/workspaces/{workspaceId}/segments/preview';

describe('segments: preview an unsaved rule', () => {
  let ctx: Awaited<ReturnType<typeof workspace>>;
  const ids: string[] = [];
  const preview = (rules: unknown, client = ctx.admin) =>
    client.post(`${ctx.base}/segments/preview`, { rules });

  before(async () => {
    ctx = await workspace({ listening: false });
    for (let n = 0; n < 12; n++) {
      const contact = await createContact(ctx.admin, ctx.base, {
        email: `p${n}@${n % 2 ? 'odd' : 'even'}.test`,
        firstName: n === 0 ? '<script>alert(1)</script>' : `P${n}`,
      });
      await setCreatedAt(contact.id, new Date(Date.UTC(2026, 0, 1 + n)).toISOString());
      ids.push(contact.id);
    }
    for (const contactId of ids.slice(0, 3)) await track(ctx.admin, ctx.base, { type: 'signup', contactId });
  });

  it('counts the matching contacts exactly and samples the newest ten, saving nothing', async () => {
    const response = await preview({ field: 'email', op: 'ends_with', value: '@even.test' });
    expect(response.status, response.text).to.equal(200);
    await expectDocumented('post', PATH, response);
    expect(response.body).to.include({ count: 6, exact: true });
    expect(response.body.sample.map((contact: { id: string }) => contact.id)).to.deep.equal(
      [10, 8, 6, 4, 2, 0].map((n) => ids[n]),
    );
    expect(response.body.sample.at(-1)).to.deep.equal({
      id: ids[0],
      email: 'p0@even.test',
      firstName: '<script>alert(1)</script>',
      lastName: null,
    });
    const list = await ctx.admin.get(`${ctx.base}/segments`);
    expect(list.body.total).to.equal(0);
  });

  it('samples at most ten and evaluates event conditions as membership does', async () => {
    const all = await preview({ field: 'email', op: 'exists' });
    expect(all.body.count).to.equal(12);
    expect(all.body.sample).to.have.length(10);
    const signedUp = await preview({
      all: [{ event: 'signup', within: 'P1D' }, { not: { field: 'email', op: 'contains', value: 'p1@' } }],
    });
    expect(signedUp.body).to.include({ count: 2, exact: true });
    const none = await preview({ leadScore: { gt: 0 } });
    expect(none.body).to.deep.equal({ count: 0, exact: true, sample: [] });
  });

  it('counts what the saved segment would hold, event conditions narrowed or not', async () => {
    await track(ctx.admin, ctx.base, { type: 'buy', contactId: ids[4], metadata: { amount: 50 } });
    for (let n = 0; n < 3; n++)
      await track(ctx.admin, ctx.base, { type: 'buy', contactId: ids[5], metadata: { amount: 500 } });
    const rules = [
      { event: 'buy', count: { gt: 2 } },
      { event: 'buy', where: [{ path: 'amount', op: 'gt', value: 100 }] },
      { any: [{ event: 'buy' }, { event: 'signup', within: 'P7D' }] },
      { any: [{ event: 'buy' }, { field: 'email', op: 'contains', value: 'p7@' }] },
      { all: [{ event: 'buy' }, { event: 'signup', count: { eq: 0 } }] },
      { not: { event: 'buy' } },
      {
        all: [
          { event: 'signup', count: { lte: 1 } },
          { event: 'buy', count: { gte: 1, lt: 2 } },
        ],
      },
    ];
    for (const rule of rules) {
      const previewed = await preview(rule);
      const saved = await createSegment(ctx.admin, ctx.base, rule);
      expect(previewed.body.count, JSON.stringify(rule)).to.equal(saved.count);
      await ctx.admin.delete(`${ctx.base}/segments/${saved.id}`);
    }
  });

  it(`stops counting past ${PREVIEW_COUNT_CAP.toLocaleString('en')}: "more than" the cap, never a wrong number`, async () => {
    const crowd = await workspace({ listening: false });
    await server().context.db.query(sql.typeAlias('void')`
      insert into contacts (workspace_id, id, email)
      select ${crowd.workspaceId}, 'ct_crowd' || n, 'c' || n || '@crowd.test' from generate_series(1, ${PREVIEW_COUNT_CAP + 1}) as n
    `);
    const over = await crowd.admin.post(`${crowd.base}/segments/preview`, {
      rules: { field: 'email', op: 'exists' },
    });
    expect(over.body).to.include({ count: PREVIEW_COUNT_CAP, exact: false });
    await expectDocumented('post', PATH, over);
    const at = await crowd.admin.post(`${crowd.base}/segments/preview`, {
      rules: { field: 'email', op: 'neq', value: 'c1@crowd.test' },
    });
    expect(at.body).to.include({ count: PREVIEW_COUNT_CAP, exact: true });
  });

  it('needs segments:read, and an API key reads only its own workspace', async () => {
    expectProblem(
      await preview({ field: 'email', op: 'exists' }, await ctx.withScopes(['contacts:read'])),
      403,
    );
    const reader = await ctx.withScopes(['segments:read']);
    expect((await preview({ field: 'email', op: 'exists' }, reader)).body.count).to.equal(12);
    const other = await workspace({ listening: false });
    const foreign = await reader.post(`${other.base}/segments/preview`, {
      rules: { field: 'email', op: 'exists' },
    });
    expectProblem(foreign, 401); // the key belongs to another workspace: not authorised there at all
  });
});
