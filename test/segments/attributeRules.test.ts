// Every operator on attributes (dot paths into JSON), with the type semantics of docs/guides/segments.md:
// strings without regard to case, numbers only with numbers, booleans exactly, ISO dates in
// strings by time, arrays for contains, and a missing or null value matching only negatives.
import { expect } from 'chai';
import { createContact, workspace } from '../events/support.ts';
import { membersOf } from './helpers.ts';

describe('segments: attribute conditions', () => {
  let ctx: Awaited<ReturnType<typeof workspace>>;
  const ids: Record<string, string> = {};
  const members = (rule: Record<string, unknown>) => membersOf(ctx.admin, ctx.base, ids, rule);

  before(async () => {
    ctx = await workspace();
    const attributes = {
      ada: {
        plan: 'Pro',
        seats: 10,
        beta: true,
        tags: ['vip', 'early'],
        address: { city: 'London' },
        renewsOn: '2026-03-01',
        code: '42',
      },
      bob: {
        plan: 'free',
        seats: 2.5,
        beta: false,
        tags: ['trial'],
        address: { city: 'Paris' },
        renewsOn: '2025-12-01T10:00:00Z',
      },
      cy: { plan: null, seats: '10', renewsOn: 'soon' },
      dee: {},
    };
    for (const [label, value] of Object.entries(attributes)) {
      ids[label] = (await createContact(ctx.admin, ctx.base, { attributes: value })).id;
    }
  });

  const cases: [string, Record<string, unknown>, string[]][] = [
    ['eq on a string ignores case', { attribute: 'plan', op: 'eq', value: 'pro' }, ['ada']],
    ['eq on a number compares numbers only', { attribute: 'seats', op: 'eq', value: 10 }, ['ada']],
    ['eq on a boolean', { attribute: 'beta', op: 'eq', value: false }, ['bob']],
    [
      'neq includes missing and null values',
      { attribute: 'plan', op: 'neq', value: 'PRO' },
      ['bob', 'cy', 'dee'],
    ],
    ['gt', { attribute: 'seats', op: 'gt', value: 2.5 }, ['ada']],
    ['gte', { attribute: 'seats', op: 'gte', value: 2.5 }, ['ada', 'bob']],
    ['lt', { attribute: 'seats', op: 'lt', value: 10 }, ['bob']],
    ['lte', { attribute: 'seats', op: 'lte', value: 10 }, ['ada', 'bob']],
    ['a numeric string is not a number', { attribute: 'code', op: 'gt', value: 1 }, []],
    ['gt on ISO dates', { attribute: 'renewsOn', op: 'gt', value: '2026-01-01' }, ['ada']],
    [
      'lte on ISO dates across offsets',
      { attribute: 'renewsOn', op: 'lte', value: '2025-12-01T11:00:00+01:00' },
      ['bob'],
    ],
    ['contains on a string', { attribute: 'plan', op: 'contains', value: 'RO' }, ['ada']],
    ['contains on an array', { attribute: 'tags', op: 'contains', value: 'VIP' }, ['ada']],
    ['not_contains', { attribute: 'tags', op: 'not_contains', value: 'vip' }, ['bob', 'cy', 'dee']],
    ['starts_with on a nested path', { attribute: 'address.city', op: 'starts_with', value: 'lon' }, ['ada']],
    ['ends_with', { attribute: 'address.city', op: 'ends_with', value: 'IS' }, ['bob']],
    ['exists skips JSON null', { attribute: 'plan', op: 'exists' }, ['ada', 'bob']],
    ['not_exists', { attribute: 'address.city', op: 'not_exists' }, ['cy', 'dee']],
    ['in with strings and numbers', { attribute: 'seats', op: 'in', value: [2.5, '10'] }, ['bob', 'cy']],
    ['in ignores case', { attribute: 'plan', op: 'in', value: ['FREE', 'enterprise'] }, ['bob']],
    ['not_in', { attribute: 'plan', op: 'not_in', value: ['free', true] }, ['ada', 'cy', 'dee']],
    ['array index in a path', { attribute: 'tags.0', op: 'eq', value: 'vip' }, ['ada']],
    ['negative array index', { attribute: 'tags.-1', op: 'eq', value: 'early' }, ['ada']],
  ];

  for (const [name, rule, expected] of cases) {
    it(name, async () => {
      expect(await members(rule)).to.deep.equal(expected);
    });
  }
});
