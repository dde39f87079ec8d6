// The console's guess of where each CSV column goes, and a row made a record by a mapping.
import { expect } from 'chai';
import { guessMapping, mappedRecord, validTarget } from '../../src/imports/mapping.ts';

describe('imports: column mapping', () => {
  it('guesses fields from names written any way, the rest data; a field taken once', () => {
    expect(
      guessMapping('contacts', ['E-mail address', 'First Name', 'last_name', 'Plan', 'email', '']),
    ).to.deep.equal(['field:email', 'field:firstName', 'field:lastName', 'attribute', 'attribute', 'ignore']);
    expect(guessMapping('events', ['Event', 'email', 'occurred_at', 'utm_source', 'total'])).to.deep.equal([
      'field:type',
      'field:email',
      'field:timestamp',
      'field:utmSource',
      'metadata',
    ]);
  });

  it('makes a record of a row: fields, data under attributes or metadata, empty and ignored cells left out', () => {
    const mapping = [
      { column: 'Mail', target: 'field:email' },
      { column: 'plan', target: 'attribute' },
      { column: 'notes', target: 'ignore' },
      { column: 'phone', target: 'attribute' },
    ] as const;
    expect(
      mappedRecord('contacts', { Mail: 'a@example.com', plan: 'pro', notes: 'x', phone: '' }, mapping),
    ).to.deep.equal({
      value: { email: 'a@example.com', attributes: { plan: 'pro' } },
    });
    expect(
      mappedRecord('events', { kind: 'order', total: '12' }, [
        { column: 'kind', target: 'field:type' },
        { column: 'total', target: 'metadata' },
      ]),
    ).to.deep.equal({ value: { type: 'order', metadata: { total: '12' } } });
    // A column named __proto__ would be dropped by the API: its row is refused, naming it.
    const hostile = JSON.parse('{"email": "a@example.com", "__proto__": "x"}');
    const refused = mappedRecord('contacts', hostile, [
      { column: 'email', target: 'field:email' },
      { column: '__proto__', target: 'attribute' },
    ]);
    expect(refused)
      .to.have.property('reason')
      .that.match(/^__proto__: cannot be the name of an attribute/);
  });

  it('takes only the targets of the kind', () => {
    expect(validTarget('contacts', 'field:email')).to.equal(true);
    expect(validTarget('contacts', 'metadata')).to.equal(false);
    expect(validTarget('events', 'field:type')).to.equal(true);
    expect(validTarget('events', 'field:attributes')).to.equal(false);
    expect(validTarget('events', 'field:metadata')).to.equal(false);
  });
});
