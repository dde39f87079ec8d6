// The guide harness itself: what it reads from markdown and what it lets pass.
import { expect } from 'chai';
import { readExchanges, Substitutions } from './examples.ts';

const guide = [
  'Some prose.',
  '```http',
  'POST /api/workspaces/ws_01JQ7Z0000000000000000000A/contacts',
  'Authorization: Bearer sb_example',
  'Content-Type: application/json',
  '',
  '{"email": "ada@example.com"}',
  '```',
  '',
  '```http',
  'HTTP/1.1 201 Created',
  '',
  '{"id": "ct_01JQ7Z0000000000000000000B", "email": "ada@example.com"}',
  '```',
].join('\n');

describe('docs/guides harness', () => {
  it('reads a request and the response the guide shows', () => {
    const [exchange] = readExchanges(guide);
    expect(exchange).to.deep.include({
      line: 2,
      eventually: false,
      method: 'POST',
      path: '/api/workspaces/ws_01JQ7Z0000000000000000000A/contacts',
      status: 201,
      body: { email: 'ada@example.com' },
      responseBody: { id: 'ct_01JQ7Z0000000000000000000B', email: 'ada@example.com' },
    });
    expect(exchange.headers.authorization).to.equal('Bearer sb_example');
  });

  it('marks a GET the guide says holds eventually, and refuses the mark on anything else', () => {
    const get = guide
      .replace('POST /api', 'GET /api')
      .replace('Some prose.', 'Later:\n\n<!-- eventually -->\n');
    expect(readExchanges(get)[0]).to.include({ method: 'GET', eventually: true, line: 5 });
    expect(readExchanges(guide)[0].eventually).to.equal(false);
    expect(() => readExchanges(guide.replace('Some prose.', '<!-- eventually -->'))).to.throw(/only a GET/);
  });

  it('refuses a request that has no response after it', () => {
    expect(() => readExchanges(guide.split('\n').slice(0, 8).join('\n'))).to.throw(
      /followed by its response/,
    );
  });

  it('matches generated values by shape and remembers which real id a shown one stands for', () => {
    const substitutions = new Substitutions();
    const shown = { id: 'ct_01JQ7Z0000000000000000000B', createdAt: '2026-01-01T00:00:00.000Z' };
    const actual = { id: 'ct_01KAAAAAAAAAAAAAAAAAAAAAAA', createdAt: '2026-11-27T14:00:00.123Z' };
    expect(substitutions.mismatch(shown, actual)).to.equal(undefined);
    expect(substitutions.apply('/contacts/ct_01JQ7Z0000000000000000000B')).to.equal(
      '/contacts/ct_01KAAAAAAAAAAAAAAAAAAAAAAA',
    );
    // The same shown id cannot stand for two real ones.
    expect(substitutions.mismatch(shown.id, 'ct_01KBBBBBBBBBBBBBBBBBBBBBBB')).to.match(/guide shows/);
    // Another prefix is another kind of id.
    expect(
      new Substitutions().mismatch('ct_01JQ7Z0000000000000000000B', 'seg_01KAAAAAAAAAAAAAAAAAAAAAAA'),
    ).to.be.a('string');
  });

  it('holds objects to the keys shown unless "…" allows more, and arrays likewise', () => {
    const substitutions = new Substitutions();
    expect(substitutions.mismatch({ a: 1 }, { a: 1, b: 2 })).to.match(/does not show: b/);
    expect(substitutions.mismatch({ a: 1, '…': '…' }, { a: 1, b: 2 })).to.equal(undefined);
    expect(substitutions.mismatch({ a: 1, b: 2 }, { a: 1 })).to.match(/missing/);
    expect(substitutions.mismatch({ a: 1 }, { a: 2 })).to.match(/body\.a/);
    expect(substitutions.mismatch([1], [1, 2])).to.match(/1 items/);
    expect(substitutions.mismatch([1, '…'], [1, 2])).to.equal(undefined);
    expect(substitutions.mismatch([1, 2], [2, 1])).to.match(/body\[0\]/);
  });
});
