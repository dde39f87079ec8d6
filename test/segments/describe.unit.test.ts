// Rules in words (src/segments/describe.ts): every operator, counts, windows, nesting.
import { expect } from 'chai';
import type { Rule } from '../../src/segments/conditionSchemas.ts';
import { describeRule, durationInWords } from '../../src/segments/describe.ts';

describe('segments: a rule in words', () => {
  it('reads the example of the issue', () => {
    const rule: Rule = {
      all: [
        { field: 'email', op: 'ends_with', value: '@acme.com' },
        { event: 'purchase', count: { gte: 3 }, within: 'P30D' },
      ],
    };
    expect(describeRule(rule)).to.equal(
      'email ends with @acme.com and at least 3 "purchase" events in the last 30 days',
    );
  });

  const cases: [Rule, string][] = [
    [{ field: 'firstName', op: 'eq', value: 'Ada' }, 'first name is Ada'],
    [{ attribute: 'address.city', op: 'eq', value: 'New York' }, 'attribute address.city is "New York"'],
    [{ attribute: 'plan', op: 'neq', value: '' }, 'attribute plan is not ""'],
    [{ attribute: 'seats', op: 'gte', value: 5 }, 'attribute seats is at least 5'],
    [{ attribute: 'vip', op: 'eq', value: true }, 'attribute vip is true'],
    [{ attribute: 'renewal', op: 'lt', value: '2026-01-31' }, 'attribute renewal is before 2026-01-31'],
    [{ field: 'createdAt', op: 'gte', value: '2026-01-01' }, 'created at is on or after 2026-01-01'],
    [{ attribute: 'tags', op: 'contains', value: 'vip' }, 'attribute tags contains vip'],
    [{ field: 'phone', op: 'not_exists' }, 'phone is not set'],
    [
      { attribute: 'plan', op: 'in', value: ['pro', 'team', 'enterprise'] },
      'attribute plan is one of pro, team or enterprise',
    ],
    [{ attribute: 'plan', op: 'not_in', value: ['free'] }, 'attribute plan is none of free'],
    [{ event: 'login' }, 'at least 1 "login" event'],
    [{ event: 'refund', count: { eq: 0 }, within: 'P1W' }, 'no "refund" events in the last week'],
    [
      {
        event: 'purchase',
        count: { gte: 2, lt: 5 },
        within: 'PT12H',
        where: [{ path: 'amount', op: 'gt', value: 100 }],
      },
      'at least 2 and fewer than 5 "purchase" events in the last 12 hours where amount is more than 100',
    ],
    [{ leadScore: { gt: 10, lte: 90 } }, 'lead score is more than 10 and at most 90'],
    [
      {
        any: [
          { all: [{ leadScore: { gte: 50 } }, { field: 'email', op: 'exists' }] },
          { not: { attribute: 'plan', op: 'eq', value: 'free' } },
        ],
      },
      '(lead score is at least 50 and email is set) or not (attribute plan is free)',
    ],
    [{ all: [{ any: [{ field: 'email', op: 'exists' }] }] }, 'email is set'],
    [{ event: 'say "hi"' }, 'at least 1 "say \\"hi\\"" event'],
  ];
  for (const [rule, words] of cases) {
    it(`reads ${JSON.stringify(rule)}`, () => {
      expect(describeRule(rule)).to.equal(words);
    });
  }

  it('reads ISO 8601 durations', () => {
    expect(durationInWords('P30D')).to.equal('30 days');
    expect(durationInWords('P1D')).to.equal('day');
    expect(durationInWords('PT1H30M')).to.equal('1 hour 30 minutes');
    expect(durationInWords('P1Y2M')).to.equal('1 year 2 months');
    expect(durationInWords('PT45S')).to.equal('45 seconds');
  });
});
