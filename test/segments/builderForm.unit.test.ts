// The builder form (src/segments/builderForm.ts): rules survive the trip through posted fields,
// the add and remove buttons change the tree, and what a form says is checked by the API's schema.
import { expect } from 'chai';
import {
  applyAction,
  formFields,
  formToRootRule,
  readForm,
  ruleToForm,
} from '../../src/segments/builderForm.ts';
import type { Rule } from '../../src/segments/conditionSchemas.ts';
import { SegmentRules } from '../../src/segments/ruleSchemas.ts';

const roundTrip = (rule: Rule) => formToRootRule(readForm(formFields(ruleToForm(rule))));

describe('segments: the builder form', () => {
  const same: Rule[] = [
    { field: 'email', op: 'ends_with', value: '@acme.com' },
    {
      all: [
        { attribute: 'plan', op: 'in', value: ['pro', 'team'] },
        { attribute: 'seats', op: 'gte', value: 5 },
      ],
    },
    {
      any: [
        { attribute: 'vip', op: 'eq', value: true },
        { leadScore: { gte: 50 } },
        { field: 'phone', op: 'exists' },
      ],
    },
    {
      all: [
        { event: 'purchase', count: { gte: 3 }, within: 'P30D' },
        { not: { event: 'refund', within: 'PT12H' } },
      ],
    },
    { not: { any: [{ field: 'email', op: 'contains', value: 'test' }, { leadScore: { lte: -10 } }] } },
    {
      all: [
        { event: 'login', count: { eq: 0 }, within: 'P2W' },
        { field: 'createdAt', op: 'lt', value: '2026-01-01' },
      ],
    },
    {
      all: [
        { event: 'purchase', where: [{ path: 'amount', op: 'gt', value: 100 }] },
        { not: { all: [{ leadScore: { gte: 10, lte: 20 } }, { attribute: 'a.b', op: 'not_exists' }] } },
      ],
    },
  ];
  for (const rule of same) {
    it(`keeps ${JSON.stringify(rule)}`, () => {
      const back = SegmentRules.parse(roundTrip(rule));
      expect(back).to.deep.equal(rule);
    });
  }

  it('writes strict bounds as the whole numbers they mean', () => {
    expect(roundTrip({ leadScore: { gt: 9, lt: 21 } })).to.deep.equal({ leadScore: { gte: 10, lte: 20 } });
    expect(roundTrip({ event: 'x', count: { gt: 2 } })).to.deep.include({ count: { gte: 3 } });
    expect(roundTrip({ event: 'x', within: 'P1D' })).to.deep.include({ within: 'P1D' });
    expect(roundTrip({ event: 'x', within: 'PT90M' })).to.deep.include({ within: 'PT90M' });
  });

  it('adds and removes entries with its buttons, the root group staying', () => {
    let tree = ruleToForm({ field: 'email', op: 'exists' });
    tree = applyAction(tree, 'add:r:any');
    tree = applyAction(tree, 'add:r.1:event');
    tree = applyAction(tree, 'add:r.1:leadScore');
    expect(formFields(tree)).to.include({
      'r:type': 'all',
      'r.1:type': 'any',
      'r.1.0:type': 'event',
      'r.1.1:type': 'leadScore',
    });
    tree = applyAction(tree, 'remove:r.1.0');
    expect(formFields(tree)).to.include({ 'r.1.0:type': 'leadScore' });
    expect(applyAction(tree, 'remove:r')).to.deep.equal(tree);
    expect(applyAction(tree, 'add:r.7:event')).to.deep.equal(tree);
    expect(applyAction(tree, 'add:r:bogus')).to.deep.equal(tree);
  });

  it('leaves to the schema what is wrong, at the path the API names', () => {
    const posted = formFields(ruleToForm({ attribute: 'seats', op: 'gt', value: 5 }));
    posted['r.0:value'] = 'many';
    posted['r.0:valueType'] = 'text';
    const result = SegmentRules.safeParse(formToRootRule(readForm(posted)));
    expect(result.success).to.equal(false);
    expect(result.error?.issues[0]?.path).to.deep.equal(['value']);
    const empty = SegmentRules.safeParse(formToRootRule(readForm({ 'r:type': 'any' })));
    expect(empty.error?.issues[0]?.message).to.match(/at least one/);
  });

  it('reads unknown types and operators as defaults, and a hostile tree no deeper than it can be', () => {
    const posted: Record<string, string> = {
      'r:type': '<script>',
      'r.0:type': 'field',
      'r.0:op': 'drop',
      'r.0:field': 'x',
    };
    expect(readForm(posted)).to.deep.equal({
      type: 'all',
      children: [{ type: 'field', field: 'email', op: 'eq', value: '' }],
    });
    let path = 'r';
    const deep: Record<string, string> = {};
    for (let depth = 0; depth < 100; depth++, path += '.0') deep[`${path}:type`] = 'all';
    expect(JSON.stringify(readForm(deep)).length).to.be.below(400);
  });
});
