// Scoring rule CRUD, validation, settings, and access: scopes, and other workspaces' rules as 404.
import { expect } from 'chai';
import { workspace } from '../events/support.ts';
import { errorPaths } from '../segments/helpers.ts';
import { expectDocumented } from '../support/documented.ts';
import { expectProblem } from '../support/factories.ts';

const rule = { name: 'Purchases', eventType: 'purchase', points: 10 };

describe('scoring: rules and settings', () => {
  let ctx: Awaited<ReturnType<typeof workspace>>;
  before(async () => {
    ctx = await workspace();
  });

  it('creates a rule with defaults, gets, lists, updates and deletes it', async () => {
    const created = await ctx.admin.post(`${ctx.base}/scoring-rules`, rule);
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.include({ ...rule, repeatable: true, active: true, where: null, cooldown: null });
    expect(created.body.id).to.match(/^scr_/);
    const path = `${ctx.base}/scoring-rules/${created.body.id}`;
    expect((await ctx.admin.get(path)).body).to.deep.equal(created.body);
    const list = await ctx.admin.get(`${ctx.base}/scoring-rules`);
    expect(list.body).to.deep.include({ page: 1, limit: 50 });
    expect(list.body.data.map((item: { id: string }) => item.id)).to.include(created.body.id);
    const where = [{ path: 'amount', op: 'gte', value: 100 }];
    const updated = await ctx.admin.patch(path, { points: -5, where, cooldown: 'P1D', repeatable: false });
    expect(updated.status, updated.text).to.equal(200);
    expect(updated.body).to.include({ name: 'Purchases', points: -5, cooldown: 'P1D', repeatable: false });
    expect(updated.body.where).to.deep.equal(where);
    const cleared = await ctx.admin.patch(path, { where: null, cooldown: null, active: false });
    expect(cleared.body).to.include({ where: null, cooldown: null, active: false });
    expect((await ctx.admin.delete(path)).status).to.equal(204);
    expectProblem(await ctx.admin.get(path), 404);
    expectProblem(await ctx.admin.patch(path, { points: 1 }), 404);
    expectProblem(await ctx.admin.delete(path), 404);
  });

  it('answers null where, and null decay, as the served OpenAPI document says', async () => {
    const rulesPath = '/api/workspaces/{workspaceId}/scoring-rules';
    const created = await ctx.admin.post(`${ctx.base}/scoring-rules`, rule);
    expect(created.body.where).to.equal(null);
    await expectDocumented('post', rulesPath, created);
    await expectDocumented('get', rulesPath, await ctx.admin.get(`${ctx.base}/scoring-rules`));
    const one = await ctx.admin.get(`${ctx.base}/scoring-rules/${created.body.id}`);
    await expectDocumented('get', `${rulesPath}/{ruleId}`, one);
    const settingsPath = '/api/workspaces/{workspaceId}/scoring-settings';
    const cleared = await ctx.admin.put(`${ctx.base}/scoring-settings`, { decay: null });
    expect(cleared.body.decay).to.equal(null);
    await expectDocumented('put', settingsPath, cleared);
    await expectDocumented('get', settingsPath, await ctx.admin.get(`${ctx.base}/scoring-settings`));
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['zero points', { ...rule, points: 0 }, 'body.points'],
    ['too many points', { ...rule, points: 1001 }, 'body.points'],
    ['fractional points', { ...rule, points: 1.5 }, 'body.points'],
    ['a bad cooldown', { ...rule, cooldown: '1 day' }, 'body.cooldown'],
    ['a bad where', { ...rule, where: [{ path: 'amount', op: 'gt', value: [1] }] }, 'body.where.0.value'],
    ['a missing event type', { name: 'x', points: 1 }, 'body.eventType'],
    ['an unknown key', { ...rule, color: 'red' }, 'body.color'],
    [
      'an unknown key in where',
      { ...rule, where: [{ path: 'a', op: 'eq', value: 1, not: true }] },
      'body.where.0.not',
    ],
  ];
  for (const [name, body, path] of invalid) {
    it(`refuses ${name} at ${path}`, async () => {
      const response = await ctx.admin.post(`${ctx.base}/scoring-rules`, body);
      expectProblem(response, 400);
      expect(errorPaths(response)).to.include(path);
    });
  }

  it('sets, reads and clears decay', async () => {
    expect((await ctx.admin.get(`${ctx.base}/scoring-settings`)).body).to.deep.equal({
      decay: null,
      lastDecayAt: null,
    });
    const set = await ctx.admin.put(`${ctx.base}/scoring-settings`, { decay: { points: 5, every: 'P7D' } });
    expect(set.status, set.text).to.equal(200);
    expect(set.body.decay).to.deep.equal({ points: 5, every: 'P7D' });
    expect(set.body.lastDecayAt).to.be.a('string');
    expect((await ctx.admin.get(`${ctx.base}/scoring-settings`)).body).to.deep.equal(set.body);
    const bad = await ctx.admin.put(`${ctx.base}/scoring-settings`, { decay: { points: 5, every: 'PT30S' } });
    expectProblem(bad, 400);
    expect(errorPaths(bad)).to.include('body.decay.every');
    expectProblem(
      await ctx.admin.put(`${ctx.base}/scoring-settings`, { decay: { points: 0, every: 'P1D' } }),
      400,
    );
    const cleared = await ctx.admin.put(`${ctx.base}/scoring-settings`, { decay: null });
    expect(cleared.body).to.deep.equal({ decay: null, lastDecayAt: null });
  });

  it('names the missing field of a partial decay, not the whole decay', async () => {
    const partial = await ctx.admin.put(`${ctx.base}/scoring-settings`, { decay: { points: 5 } });
    expectProblem(partial, 400);
    expect(errorPaths(partial)).to.deep.equal(['body.decay.every']);
    const extra = await ctx.admin.put(`${ctx.base}/scoring-settings`, {
      decay: { points: 5, every: 'P1D', color: 'red' },
    });
    expect(errorPaths(extra)).to.deep.equal(['body.decay.color']);
    const wrongType = await ctx.admin.put(`${ctx.base}/scoring-settings`, { decay: 'weekly' });
    expect(errorPaths(wrongType)).to.deep.equal(['body.decay']);
  });

  it("answers 404 for another workspace's rule, and refuses keys without the scope", async () => {
    const created = await ctx.admin.post(`${ctx.base}/scoring-rules`, rule);
    const other = await workspace();
    const foreign = `${other.base}/scoring-rules/${created.body.id}`;
    expectProblem(await other.admin.get(foreign), 404);
    expectProblem(await other.admin.patch(foreign, { points: 1 }), 404);
    expectProblem(await other.admin.delete(foreign), 404);

    const reader = await ctx.withScopes(['segments:read']);
    expect((await reader.get(`${ctx.base}/scoring-rules/${created.body.id}`)).status).to.equal(200);
    expect((await reader.get(`${ctx.base}/scoring-settings`)).status).to.equal(200);
    const refused = expectProblem(await reader.post(`${ctx.base}/scoring-rules`, rule), 403);
    expect(refused.detail).to.contain('segments:write');
    expectProblem(await reader.put(`${ctx.base}/scoring-settings`, { decay: null }), 403);
    const contactsKey = await ctx.withScopes(['contacts:read']);
    expect(expectProblem(await contactsKey.get(`${ctx.base}/scoring-rules`), 403).detail).to.contain(
      'segments:read',
    );
  });
});
