// Every operator on contact fields, with its semantics: case-insensitive text, missing values
// matching only negative operators, LIKE wildcards taken literally, createdAt as a timestamp.
import { expect } from 'chai';
import { createContact, workspace } from '../events/support.ts';
import { membersOf, setCreatedAt } from './helpers.ts';

describe('segments: field conditions', () => {
  let ctx: Awaited<ReturnType<typeof workspace>>;
  const ids: Record<string, string> = {};
  const members = (rules: unknown) => membersOf(ctx.admin, ctx.base, ids, rules);

  before(async () => {
    ctx = await workspace();
    const people = {
      ada: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', phone: '+44 20 7946 0000' },
      bob: { email: 'bob@test.org', firstName: 'Bob' },
      anon: { anonymousId: 'visitor-1' },
      cy: { email: 'cy@example.com', firstName: '50%_off' },
    };
    for (const [label, body] of Object.entries(people))
      ids[label] = (await createContact(ctx.admin, ctx.base, body)).id;
    await setCreatedAt(ids.ada, '2026-01-01T00:00:00.000Z');
    await setCreatedAt(ids.bob, '2026-02-01T00:00:00.000Z');
    await setCreatedAt(ids.anon, '2026-03-01T00:00:00.000Z');
    await setCreatedAt(ids.cy, '2026-04-01T12:30:00.250Z');
  });

  const cases: [string, unknown, string[]][] = [
    ['eq ignores case', { field: 'email', op: 'eq', value: 'ADA@Example.com' }, ['ada']],
    [
      'neq includes contacts without the field',
      { field: 'email', op: 'neq', value: 'ada@example.com' },
      ['anon', 'bob', 'cy'],
    ],
    ['contains', { field: 'email', op: 'contains', value: 'EXAMPLE' }, ['ada', 'cy']],
    ['not_contains', { field: 'email', op: 'not_contains', value: 'example' }, ['anon', 'bob']],
    ['starts_with', { field: 'firstName', op: 'starts_with', value: 'bo' }, ['bob']],
    ['ends_with', { field: 'email', op: 'ends_with', value: '.org' }, ['bob']],
    ['exists', { field: 'lastName', op: 'exists' }, ['ada']],
    ['not_exists', { field: 'email', op: 'not_exists' }, ['anon']],
    ['in', { field: 'email', op: 'in', value: ['BOB@test.org', 'nobody@example.com'] }, ['bob']],
    ['not_in', { field: 'firstName', op: 'not_in', value: ['ada', 'bob'] }, ['anon', 'cy']],
    ['contains takes % and _ literally', { field: 'firstName', op: 'contains', value: '%_' }, ['cy']],
    ['starts_with takes _ literally', { field: 'firstName', op: 'starts_with', value: '_' }, []],
    ['phone', { field: 'phone', op: 'starts_with', value: '+44' }, ['ada']],
    ['createdAt gt', { field: 'createdAt', op: 'gt', value: '2026-02-01T00:00:00Z' }, ['anon', 'cy']],
    [
      'createdAt gte with a date',
      { field: 'createdAt', op: 'gte', value: '2026-02-01' },
      ['anon', 'bob', 'cy'],
    ],
    ['createdAt lt', { field: 'createdAt', op: 'lt', value: '2026-02-01T01:00:00+01:00' }, ['ada']],
    ['createdAt lte', { field: 'createdAt', op: 'lte', value: '2026-02-01T00:00:00.000Z' }, ['ada', 'bob']],
    [
      'createdAt eq at millisecond precision',
      { field: 'createdAt', op: 'eq', value: '2026-04-01T12:30:00.250Z' },
      ['cy'],
    ],
    [
      'createdAt neq',
      { field: 'createdAt', op: 'neq', value: '2026-04-01T12:30:00.250Z' },
      ['ada', 'anon', 'bob'],
    ],
  ];

  for (const [name, rule, expected] of cases) {
    it(name, async () => {
      expect(await members(rule)).to.deep.equal(expected);
    });
  }
});
