// Bad rules are 400s that point at the bad path, whatever the mistake.
import { expect } from 'chai';
import { workspace } from '../events/support.ts';
import { expectProblem } from '../support/factories.ts';
import { errorPaths } from './helpers.ts';

function nested(depth: number): unknown {
  return depth === 0 ? { field: 'email', op: 'exists' } : { not: nested(depth - 1) };
}

describe('segments: rule validation', () => {
  let ctx: Awaited<ReturnType<typeof workspace>>;
  before(async () => {
    ctx = await workspace();
  });

  const cases: [string, unknown, string, RegExp][] = [
    [
      'an unknown operator',
      {
        all: [
          { field: 'email', op: 'exists' },
          { field: 'email', op: 'like', value: 'a' },
        ],
      },
      'body.rules.all.1.op',
      /one of eq/,
    ],
    [
      'an ordering operator on a text field',
      { field: 'firstName', op: 'gt', value: 'a' },
      'body.rules.op',
      /firstName is text/,
    ],
    [
      'a missing value',
      { any: [{ attribute: 'plan', op: 'eq' }] },
      'body.rules.any.0.value',
      /required with eq/,
    ],
    ['a value with exists', { attribute: 'plan', op: 'exists', value: 1 }, 'body.rules.value', /left out/],
    ['an empty in list', { attribute: 'plan', op: 'in', value: [] }, 'body.rules.value', /at least one/],
    [
      'an object inside in',
      { attribute: 'plan', op: 'in', value: ['a', { b: 1 }] },
      'body.rules.value.1',
      /string, a number or a boolean/,
    ],
    ['gt with a word', { attribute: 'seats', op: 'gt', value: 'many' }, 'body.rules.value', /ISO 8601/],
    [
      'a bad createdAt',
      { field: 'createdAt', op: 'gte', value: '2026-02-30' },
      'body.rules.value',
      /ISO 8601/,
    ],
    ['an unknown field', { field: 'age', op: 'eq', value: '1' }, 'body.rules.field', /one of email/],
    [
      'a bad attribute path',
      { attribute: 'address..city', op: 'exists' },
      'body.rules.attribute',
      /dot path/,
    ],
    ['a bad window', { event: 'purchase', within: '30 days' }, 'body.rules.within', /ISO 8601 duration/],
    ['an empty count', { event: 'purchase', count: {} }, 'body.rules.count', /at least one/],
    ['a negative count', { event: 'purchase', count: { gte: -1 } }, 'body.rules.count.gte', /./],
    [
      'a bad where',
      { event: 'purchase', where: [{ path: 'amount', op: 'gt' }] },
      'body.rules.where.0.value',
      /required/,
    ],
    ['an unknown key', { event: 'purchase', times: 2 }, 'body.rules.times', /not a known field/],
    ['a fractional score', { leadScore: { gte: 1.5 } }, 'body.rules.leadScore.gte', /whole number/],
    ['a node of no kind', { all: [{ foo: 1 }] }, 'body.rules.all.0', /one of: all, any, not/],
    ['an empty all', { all: [] }, 'body.rules.all', /at least one/],
    ['nesting deeper than five levels', nested(6), 'body.rules.not.not.not.not.not', /5 levels/],
    ['a NUL character', { field: 'email', op: 'eq', value: 'a\u0000b' }, 'body.rules.value', /NUL/],
    ['not an object', 'email = a', 'body.rules', /one of: all/],
  ];

  for (const [name, rules, path, message] of cases) {
    it(`refuses ${name} at ${path}`, async () => {
      const response = await ctx.admin.post(`${ctx.base}/segments`, { name: 'Bad', rules });
      expectProblem(response, 400);
      expect(errorPaths(response)).to.include(path);
      const error = response.body.errors.find((item: { path: string }) => item.path === path);
      expect(error.message).to.match(message);
    });

    it(`refuses ${name} in a preview exactly as on creation`, async () => {
      const created = await ctx.admin.post(`${ctx.base}/segments`, { name: 'Bad', rules });
      const previewed = await ctx.admin.post(`${ctx.base}/segments/preview`, { rules });
      expectProblem(previewed, 400);
      expect(previewed.body.errors).to.deep.equal(created.body.errors);
    });
  }

  it('accepts five levels of nesting', async () => {
    const response = await ctx.admin.post(`${ctx.base}/segments`, { name: 'Deep', rules: nested(5) });
    expect(response.status, response.text).to.equal(201);
  });

  it('refuses more than 50 conditions in one tree', async () => {
    const leaf = { field: 'email', op: 'exists' };
    const rules = { any: [{ all: Array(30).fill(leaf) }, { all: Array(21).fill(leaf) }] };
    const response = await ctx.admin.post(`${ctx.base}/segments`, { name: 'Big', rules });
    expectProblem(response, 400);
    expect(response.body.errors[0]).to.deep.equal({
      path: 'body.rules',
      message: 'holds 51 conditions; at most 50 are allowed',
    });
  });

  it('refuses a rule tree past the cost limits, naming each limit, and creates nothing', async () => {
    // The shape that held the database for a minute per evaluation: 50 event conditions, each
    // reading up to a million events per contact through ten `where` clauses.
    const where = Array.from({ length: 10 }, (_, n) => ({
      path: 'tags',
      op: 'not_contains',
      value: `zz${n}`,
    }));
    const rules = { any: Array(50).fill({ event: 'purchase', count: { gte: 1_000_000 }, where }) };
    const response = await ctx.admin.post(`${ctx.base}/segments`, { name: 'Heavy', rules });
    expectProblem(response, 400);
    expect(response.body.errors).to.deep.equal([
      {
        path: 'body.rules',
        message:
          'holds 50 event conditions; at most 10 are allowed; ' +
          'holds 500 `where` clauses across its event conditions; at most 20 are allowed',
      },
    ]);
    const list = await ctx.admin.get(`${ctx.base}/segments`);
    expect(list.body.data.map((segment: { name: string }) => segment.name)).not.to.include('Heavy');
  });

  it('accepts a tree at the cost limits', async () => {
    const where = Array.from({ length: 2 }, (_, n) => ({
      path: 'tags',
      op: 'not_contains',
      value: `zz${n}`,
    }));
    const rules = { any: Array(10).fill({ event: 'purchase', where }) };
    const response = await ctx.admin.post(`${ctx.base}/segments`, { name: 'At the limit', rules });
    expect(response.status, response.text).to.equal(201);
  });

  it('refuses a blank name, unknown body keys and a missing body', async () => {
    const rules = { field: 'email', op: 'exists' };
    const blank = await ctx.admin.post(`${ctx.base}/segments`, { name: '  ', rules });
    expectProblem(blank, 400);
    expect(errorPaths(blank)).to.include('body.name');
    const extra = await ctx.admin.post(`${ctx.base}/segments`, { name: 'X', rules, color: 'red' });
    expectProblem(extra, 400);
    const missing = await ctx.admin.post(`${ctx.base}/segments`, { name: 'X' });
    expectProblem(missing, 400);
    expect(errorPaths(missing)).to.include('body.rules');
  });

  it('refuses a PATCH with nothing to change, and bad rules on PATCH', async () => {
    const created = await ctx.admin.post(`${ctx.base}/segments`, {
      name: 'P',
      rules: { field: 'email', op: 'exists' },
    });
    expectProblem(await ctx.admin.patch(`${ctx.base}/segments/${created.body.id}`, {}), 400);
    const bad = await ctx.admin.patch(`${ctx.base}/segments/${created.body.id}`, {
      rules: { not: { leadScore: {} } },
    });
    expectProblem(bad, 400);
    expect(errorPaths(bad)).to.include('body.rules.not.leadScore');
  });
});
