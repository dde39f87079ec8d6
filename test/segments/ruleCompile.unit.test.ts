// The rule compiler, without running its SQL (test/segments/matcher.test.ts and the rule tests run
// it on PostgreSQL): what a typed value may reach in the SQL text, how LIKE patterns are escaped,
// how event counts are capped; and what a rule tree depends on, its windows, score moves and cost.
import { expect } from 'chai';
import { durationSeconds } from '../../src/segments/duration.ts';
import { ruleCostProblems } from '../../src/segments/ruleCost.ts';
import {
  compileMetadataConditions,
  compileSegmentRules,
  type Rule,
  ruleDependencies,
  scoreMoveMatters,
  timeWindows,
} from '../../src/segments/rules.ts';

const HOSTILE = "Pro'); drop table contacts; --";

function compiled(rule: Rule): { sql: string; values: readonly unknown[] } {
  const { sql, values } = compileSegmentRules(rule);
  return { sql, values };
}

describe('segments: rule compilation', () => {
  it('sends every typed value and path as a bind parameter, never as SQL text', () => {
    const rule: Rule = {
      any: [
        { attribute: `a.${HOSTILE}`, op: 'eq', value: HOSTILE },
        { field: 'email', op: 'in', value: [HOSTILE] },
        { event: HOSTILE, where: [{ path: HOSTILE, op: 'contains', value: HOSTILE }] },
      ],
    };
    const { sql, values } = compiled(rule);
    expect(sql).not.to.include('drop table');
    expect(sql).not.to.include(HOSTILE.toLowerCase());
    expect(values).to.deep.include(['a', HOSTILE]);
    expect(values).to.include(HOSTILE.toLowerCase());
    expect(values).to.include(HOSTILE);
  });

  it('folds text values to lower case A–Z before they are compared', () => {
    const { values } = compiled({ attribute: 'city', op: 'eq', value: 'KÖLN' });
    expect(values).to.include('kÖln');
  });

  it('escapes LIKE wildcards of a value, so contains "50%_off" means those characters', () => {
    const contains = compiled({ field: 'email', op: 'contains', value: '50%_Off\\' });
    expect(contains.values).to.include('%50\\%\\_off\\\\%');
    const starts = compiled({ field: 'firstName', op: 'starts_with', value: 'A_' });
    expect(starts.values).to.include('a\\_%');
    const ends = compiled({ field: 'lastName', op: 'ends_with', value: '%' });
    expect(ends.values).to.include('%\\%');
  });

  it('makes every condition two-valued and a negative operator the negation of its positive', () => {
    const { sql } = compiled({ attribute: 'plan', op: 'neq', value: 'pro' });
    expect(sql).to.match(/^\(not coalesce\(\(.*\), false\)\)$/s);
    expect(compiled({ attribute: 'plan', op: 'eq', value: 'pro' }).sql).to.match(/^coalesce\(/);
  });

  it('counts events one past the largest bound, at least once by default, within the window in seconds', () => {
    const once = compiled({ event: 'purchase' });
    expect(once.values.at(-1)).to.equal(2);
    expect(once.sql).to.include('counted.n >=');
    expect(once.sql).not.to.include('make_interval');
    const windowed = compiled({ event: 'purchase', count: { gte: 2, lt: 5 }, within: 'P1D' });
    expect(windowed.values.at(-1)).to.equal(6);
    expect(windowed.values).to.include(86_400);
    expect(windowed.sql).to.include('make_interval');
  });

  it('reads where clauses off the event row, every one of them, and none as true', () => {
    expect(compileMetadataConditions([], 'e').sql).to.equal('true');
    expect(compiled({ event: 'visit' }).sql).to.include('and true limit');
    const filtered = compiled({
      event: 'visit',
      where: [
        { path: 'page.path', op: 'exists' },
        { path: 'referrer', op: 'not_exists' },
      ],
    });
    expect(filtered.sql).to.include('"e"."metadata" #>');
    expect(filtered.sql).not.to.include('and true limit');
    expect(filtered.values).to.deep.include(['page', 'path']);
    expect(filtered.values).to.deep.include(['referrer']);
  });

  it('compiles a rules object once and gives another object its own compilation', () => {
    const rule: Rule = { leadScore: { gte: 10 } };
    expect(compileSegmentRules(rule)).to.equal(compileSegmentRules(rule));
    const twin: Rule = { leadScore: { gte: 10 } };
    expect(compileSegmentRules(twin)).not.to.equal(compileSegmentRules(rule));
    expect(compiled(twin)).to.deep.equal(compiled(rule));
  });
});

describe('segments: what a rule depends on', () => {
  const rule: Rule = {
    all: [
      { field: 'email', op: 'ends_with', value: '@acme.test' },
      { not: { attribute: 'plan', op: 'eq', value: 'free' } },
      { any: [{ event: 'purchase', within: 'P30D' }, { event: 'signup' }, { leadScore: { gte: 50 } }] },
      { event: 'purchase' },
    ],
  };

  it('lists event types and fields once, sorted, with the score and any time window', () => {
    expect(ruleDependencies(rule)).to.deep.equal({
      eventTypes: ['purchase', 'signup'],
      fields: ['attributes', 'email'],
      score: true,
      timeWindow: true,
    });
    expect(ruleDependencies({ event: 'signup' })).to.deep.equal({
      eventTypes: ['signup'],
      fields: [],
      score: false,
      timeWindow: false,
    });
  });

  it('lists every window with its length in seconds', () => {
    expect(timeWindows(rule)).to.deep.equal([{ eventType: 'purchase', seconds: 30 * 86_400 }]);
    expect(timeWindows({ not: { event: 'visit', within: 'PT1H30M' } })).to.deep.equal([
      { eventType: 'visit', seconds: 5_400 },
    ]);
  });

  it('says a score move matters only when it crosses a bound of a leadScore condition', () => {
    const scored: Rule = { any: [{ leadScore: { gte: 50, lt: 100 } }, { event: 'signup' }] };
    expect(scoreMoveMatters(scored, 10, 40)).to.equal(false);
    expect(scoreMoveMatters(scored, 40, 50)).to.equal(true);
    expect(scoreMoveMatters(scored, 60, 90)).to.equal(false);
    expect(scoreMoveMatters(scored, 99, 100)).to.equal(true);
    expect(scoreMoveMatters({ not: { leadScore: { eq: 7 } } }, 6, 7)).to.equal(true);
    expect(scoreMoveMatters({ event: 'signup' }, 0, 1_000)).to.equal(false);
  });
});

describe('segments: durations and rule cost', () => {
  it('reads ISO 8601 durations with fixed calendar units, and nothing else', () => {
    expect(durationSeconds('P30D')).to.equal(2_592_000);
    expect(durationSeconds('P1W')).to.equal(604_800);
    expect(durationSeconds('P1M')).to.equal(30 * 86_400);
    expect(durationSeconds('P1Y')).to.equal(365 * 86_400);
    expect(durationSeconds('PT1M')).to.equal(60);
    expect(durationSeconds('P1DT12H')).to.equal(129_600);
    for (const text of ['P', 'PT', 'P1.5D', '30D', 'P1H', 'p1d', 'P-1D', '']) {
      expect(durationSeconds(text), text).to.equal(null);
    }
  });

  it('names each limit a tree exceeds, with the tree own figure', () => {
    const limits = { depth: 5, conditions: 3, eventConditions: 1, where: 1 };
    const tree: Rule = {
      all: [
        { event: 'a', where: [{ path: 'x', op: 'exists' }] },
        { not: { event: 'b', where: [{ path: 'y', op: 'exists' }] } },
        { leadScore: { gte: 1 } },
      ],
    };
    expect(ruleCostProblems(tree, limits)).to.deep.equal([
      'holds 2 event conditions; at most 1 are allowed',
      'holds 2 `where` clauses across its event conditions; at most 1 are allowed',
    ]);
    expect(ruleCostProblems({ any: [tree, { field: 'email', op: 'exists' }] }, limits)).to.have.length(3);
    expect(ruleCostProblems(tree, { ...limits, eventConditions: 2, where: 2 })).to.deep.equal([]);
  });
});
