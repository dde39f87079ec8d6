import { expect } from 'chai';
import { fieldChanges } from '../../src/audit/diff.ts';

describe('Audit log: before and after as field changes', () => {
  it('lists only the fields that differ, by dotted path, arrays whole', () => {
    const before = { name: 'CRM', active: true, events: ['a'], dkim: { selector: 's1', domain: 'd' } };
    const after = { name: 'CRM 2', active: true, events: ['a', 'b'], dkim: { selector: 's2', domain: 'd' } };
    expect(fieldChanges(before, after)).to.deep.equal([
      { field: 'name', before: 'CRM', after: 'CRM 2' },
      { field: 'events', before: '["a"]', after: '["a","b"]' },
      { field: 'dkim.selector', before: 's1', after: 's2' },
    ]);
  });

  it('shows a creation as fields added and a deletion as fields removed', () => {
    expect(fieldChanges(null, { name: 'x', count: 2 })).to.deep.equal([
      { field: 'name', before: null, after: 'x' },
      { field: 'count', before: null, after: '2' },
    ]);
    expect(fieldChanges({ name: 'x', decay: null }, null)).to.deep.equal([
      { field: 'name', before: 'x', after: null },
      { field: 'decay', before: 'null', after: null },
    ]);
    expect(fieldChanges({ a: 1 }, { a: 1 })).to.deep.equal([]);
  });
});
