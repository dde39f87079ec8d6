// The JavaScript matcher of metadata conditions (scoring rules, campaign triggers and goals), on
// the edges of its documented semantics: A–Z case folding only, numbers only with numbers, dates
// only as ISO 8601 strings, and a missing value matching no positive operator and every negative one.
import { expect } from 'chai';
import { type MetadataCondition, matchesMetadataConditions, valueAt } from '../../src/segments/rules.ts';

const matches = (condition: MetadataCondition, metadata: Record<string, unknown>) =>
  matchesMetadataConditions([condition], metadata);

describe('segments: metadata matching', () => {
  it('walks objects by key and arrays by index, negative from the end', () => {
    const document = { items: [{ sku: 'a' }, { sku: 'b' }, { sku: 'c' }], address: { city: 'Lyon' } };
    expect(valueAt(document, 'address.city')).to.equal('Lyon');
    expect(valueAt(document, 'items.0.sku')).to.equal('a');
    expect(valueAt(document, 'items.-1.sku')).to.equal('c');
    expect(valueAt(document, 'items.3.sku')).to.equal(undefined);
    expect(valueAt(document, 'items.first')).to.equal(undefined);
    expect(valueAt(document, 'address.city.name')).to.equal(undefined);
  });

  it('reads only own keys, never what an object inherits', () => {
    expect(valueAt({}, 'constructor')).to.equal(undefined);
    expect(valueAt({ a: {} }, 'a.__proto__')).to.equal(undefined);
    expect(valueAt({ a: {} }, 'a.toString')).to.equal(undefined);
    expect(matches({ path: 'constructor', op: 'exists' }, {})).to.equal(false);
  });

  it('holds an empty or absent list of conditions for every event', () => {
    expect(matchesMetadataConditions([], {})).to.equal(true);
    expect(matchesMetadataConditions(null, { a: 1 })).to.equal(true);
    expect(matchesMetadataConditions(undefined, { a: 1 })).to.equal(true);
  });

  it('requires every condition of the list', () => {
    const where: MetadataCondition[] = [
      { path: 'plan', op: 'eq', value: 'pro' },
      { path: 'amount', op: 'gt', value: 100 },
    ];
    expect(matchesMetadataConditions(where, { plan: 'pro', amount: 150 })).to.equal(true);
    expect(matchesMetadataConditions(where, { plan: 'pro', amount: 50 })).to.equal(false);
    expect(matchesMetadataConditions(where, { plan: 'free', amount: 150 })).to.equal(false);
  });

  it('folds the case of A–Z only, so Ö and ö stay different as they do in a C-locale database', () => {
    expect(matches({ path: 'plan', op: 'eq', value: 'PRO' }, { plan: 'pro' })).to.equal(true);
    expect(matches({ path: 'city', op: 'eq', value: 'köln' }, { city: 'KöLN' })).to.equal(true);
    expect(matches({ path: 'city', op: 'eq', value: 'ÖREBRO' }, { city: 'örebro' })).to.equal(false);
    expect(matches({ path: 'name', op: 'starts_with', value: 'AN' }, { name: 'ann' })).to.equal(true);
    expect(matches({ path: 'name', op: 'ends_with', value: 'NN' }, { name: 'ann' })).to.equal(true);
  });

  it('compares numbers only with numbers: "42" is not 42', () => {
    expect(matches({ path: 'n', op: 'eq', value: 42 }, { n: 42 })).to.equal(true);
    expect(matches({ path: 'n', op: 'eq', value: 42 }, { n: '42' })).to.equal(false);
    expect(matches({ path: 'n', op: 'eq', value: '42' }, { n: 42 })).to.equal(false);
    expect(matches({ path: 'n', op: 'gt', value: 10 }, { n: '42' })).to.equal(false);
    expect(matches({ path: 'n', op: 'gte', value: 42 }, { n: 42 })).to.equal(true);
    expect(matches({ path: 'n', op: 'lt', value: 42 }, { n: 42 })).to.equal(false);
    expect(matches({ path: 'n', op: 'lte', value: 42 }, { n: 42 })).to.equal(true);
    expect(matches({ path: 'flag', op: 'eq', value: true }, { flag: 'true' })).to.equal(false);
    expect(matches({ path: 'flag', op: 'eq', value: true }, { flag: true })).to.equal(true);
  });

  it('orders dates given as ISO 8601 strings, a date-time without offset being UTC', () => {
    const at = { at: '2026-03-01T10:00:00+02:00' };
    expect(matches({ path: 'at', op: 'gt', value: '2026-03-01T07:59:59Z' }, at)).to.equal(true);
    expect(matches({ path: 'at', op: 'gt', value: '2026-03-01T08:00:00' }, at)).to.equal(false);
    expect(matches({ path: 'at', op: 'gte', value: '2026-03-01T08:00:00' }, at)).to.equal(true);
    expect(matches({ path: 'at', op: 'lt', value: '2026-03-02' }, at)).to.equal(true);
    // Not a date: neither side of an ordering holds, whatever the text would sort as.
    expect(matches({ path: 'at', op: 'lt', value: '2026-03-02' }, { at: 'yesterday' })).to.equal(false);
    expect(matches({ path: 'at', op: 'gt', value: '2026-03-02' }, { at: 'yesterday' })).to.equal(false);
    expect(matches({ path: 'at', op: 'lt', value: '2026-03-02' }, { at: '2026-02-30' })).to.equal(false);
  });

  it('lets a missing or null value match no positive operator and every negative one', () => {
    for (const metadata of [{}, { plan: null }]) {
      expect(matches({ path: 'plan', op: 'eq', value: 'pro' }, metadata)).to.equal(false);
      expect(matches({ path: 'plan', op: 'neq', value: 'pro' }, metadata)).to.equal(true);
      expect(matches({ path: 'plan', op: 'contains', value: 'p' }, metadata)).to.equal(false);
      expect(matches({ path: 'plan', op: 'not_contains', value: 'p' }, metadata)).to.equal(true);
      expect(matches({ path: 'plan', op: 'in', value: ['pro', 'free'] }, metadata)).to.equal(false);
      expect(matches({ path: 'plan', op: 'not_in', value: ['pro', 'free'] }, metadata)).to.equal(true);
      expect(matches({ path: 'plan', op: 'exists' }, metadata)).to.equal(false);
      expect(matches({ path: 'plan', op: 'not_exists' }, metadata)).to.equal(true);
      expect(matches({ path: 'plan', op: 'gt', value: 0 }, metadata)).to.equal(false);
    }
  });

  it('counts false, zero and the empty string as present', () => {
    for (const value of [false, 0, '']) {
      expect(matches({ path: 'v', op: 'exists' }, { v: value })).to.equal(true);
      expect(matches({ path: 'v', op: 'not_exists' }, { v: value })).to.equal(false);
    }
  });

  it('reads contains as a substring of text and as an element of an array', () => {
    expect(matches({ path: 'title', op: 'contains', value: 'SALE' }, { title: 'Summer sale!' })).to.equal(
      true,
    );
    expect(matches({ path: 'tags', op: 'contains', value: 'VIP' }, { tags: ['new', 'vip'] })).to.equal(true);
    // An element must equal the value: part of an element is not enough.
    expect(matches({ path: 'tags', op: 'contains', value: 'vi' }, { tags: ['new', 'vip'] })).to.equal(false);
    expect(matches({ path: 'tags', op: 'not_contains', value: 'vip' }, { tags: ['new'] })).to.equal(true);
    // A number is no text: contains never looks into its digits.
    expect(matches({ path: 'n', op: 'contains', value: '4' }, { n: 42 })).to.equal(false);
  });

  it('takes each value of in by its own type', () => {
    const condition: MetadataCondition = { path: 'v', op: 'in', value: ['PRO', 3, true] };
    expect(matches(condition, { v: 'pro' })).to.equal(true);
    expect(matches(condition, { v: 3 })).to.equal(true);
    expect(matches(condition, { v: true })).to.equal(true);
    expect(matches(condition, { v: '3' })).to.equal(false);
    expect(matches(condition, { v: 'true' })).to.equal(false);
    expect(matches({ path: 'v', op: 'not_in', value: ['PRO', 3] }, { v: 'Pro' })).to.equal(false);
  });
});
