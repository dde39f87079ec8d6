// The limits every JSON body is held to (src/http/jsonLimits.ts): nesting depth, array items and
// object keys, and numbers that would be stored changed. Each is a 400 naming the field, on every
// route (inbound webhooks included), and changes nothing; the requests around it are unaffected.
import { expect } from 'chai';
import { ConfigError, parseConfig } from '../../src/config.ts';
import { sql } from '../../src/db/pool.ts';
import { workspace } from '../events/support.ts';
import type { Client } from '../support/client.ts';
import { expectDocumented } from '../support/documented.ts';
import { expectProblem } from '../support/factories.ts';
import { server, startSecondWeb } from '../support/server.ts';

/** `{"a":[[[…1…]]]}` as text: JSON.stringify itself cannot nest this deep. */
const deepText = (levels: number, wrap = (inner: string) => `{"a":${inner}}`) =>
  wrap(`${'['.repeat(levels)}1${']'.repeat(levels)}`);

async function eventCount(workspaceId: string) {
  return server().context.db.oneFirst(
    sql.unsafe`select count(*)::int from events where workspace_id = ${workspaceId}`,
  );
}

async function contactCount(workspaceId: string) {
  return server().context.db.oneFirst(
    sql.unsafe`select count(*)::int from contacts where workspace_id = ${workspaceId}`,
  );
}

function expectFieldError(response: Awaited<ReturnType<Client['post']>>, path: string, message: RegExp) {
  const problem = expectProblem(response, 400) as unknown as { errors: { path: string; message: string }[] };
  expect(problem.errors, response.text).to.have.length(1);
  expect(problem.errors[0].path).to.equal(path);
  expect(problem.errors[0].message).to.match(message);
}

const post = (client: Client, path: string, body: string) =>
  client.request('POST', path, { body, headers: { 'content-type': 'application/json' } });

describe('input limits on JSON bodies', () => {
  it('refuses metadata nested 5,000 deep on every ingest route and contacts with a 400 naming the field', async () => {
    const { admin, base, workspaceId } = await workspace();
    const inbound = await admin.post(`${base}/webhooks`, { direction: 'INBOUND', signed: false });
    expect(inbound.status, inbound.text).to.equal(201);
    const deep = deepText(5000).slice(1, -1); // `"a":[[[…]]]`
    const cases: [string, string, string][] = [
      [`${base}/events`, `{"type":"click","metadata":{${deep}}}`, 'body.metadata.a.0.0.0'],
      [
        `${base}/events/batch`,
        `{"events":[{"type":"click","metadata":{${deep}}}]}`,
        'body.events.0.metadata.a.0',
      ],
      [`${base}/contacts`, `{"email":"deep@example.com","attributes":{${deep}}}`, 'body.attributes.a.0.0.0'],
      [
        `/api/webhooks/inbound/${inbound.body.id}`,
        `{"type":"click","metadata":{${deep}}}`,
        'body.metadata.a.0.0.0',
      ],
    ];
    for (const [path, body, prefix] of cases) {
      const response = await post(admin, path, body);
      const problem = expectProblem(response, 400) as unknown as {
        errors: { path: string; message: string }[];
      };
      expect(problem.errors[0].path.startsWith(prefix), problem.errors[0].path).to.equal(true);
      expect(problem.errors[0].message).to.equal('nests arrays and objects deeper than 32 levels');
    }
    expect(await eventCount(workspaceId)).to.equal(0);
    expect(await contactCount(workspaceId)).to.equal(0);
  });

  it('names the path where the nesting passes the limit, and accepts it at the limit', async () => {
    const { admin, base } = await workspace();
    // The body is level 1, metadata 2, its arrays 3 and on: 30 of them reach 32 levels.
    const atLimit = await post(admin, `${base}/events`, `{"type":"t","metadata":${deepText(30)}}`);
    expect(atLimit.status, atLimit.text).to.equal(201);
    // Brackets, digits and escaped quotes inside strings are text, not structure or numbers.
    const text = { 'k\\"[': `${'['.repeat(5000)}\\"{`, digits: '12345678901234567890' };
    const inStrings = await admin.post(`${base}/events`, { type: 't', metadata: text });
    expect(inStrings.status, inStrings.text).to.equal(201);
    expect(inStrings.body.metadata).to.deep.equal(text);
    const response = await post(admin, `${base}/events`, `{"type":"t","metadata":${deepText(31)}}`);
    expectFieldError(response, `body.metadata.a${'.0'.repeat(30)}`, /deeper than 32 levels/);
    await expectDocumented('post', '/api/workspaces/{workspaceId}/events', response);
  });

  it('takes its limits from the configuration, refusing values that would break the API', async () => {
    const web = await startSecondWeb({ JSON_MAX_DEPTH: 3, JSON_MAX_OBJECT_KEYS: 2 });
    try {
      const { admin, base } = await workspace();
      const at = (body: string) =>
        fetch(`${web.url}${base}/contacts`, {
          method: 'POST',
          headers: { cookie: admin.cookieHeader, 'content-type': 'application/json' },
          body,
        });
      expect((await at('{"attributes":{"a":[1]}}')).status).to.equal(201);
      const deeper = await at('{"attributes":{"a":[[1]]}}');
      expect(deeper.status).to.equal(400);
      expect((await deeper.json()).errors[0]).to.deep.equal({
        path: 'body.attributes.a.0',
        message: 'nests arrays and objects deeper than 3 levels',
      });
      expect((await at('{"attributes":{"a":1,"b":2,"c":3}}')).status).to.equal(400);
    } finally {
      await web.stop();
    }
    for (const [name, value] of [
      ['JSON_MAX_DEPTH', '1'],
      ['JSON_MAX_DEPTH', 'deep'],
      ['JSON_MAX_ARRAY_ITEMS', '10'],
      ['JSON_MAX_OBJECT_KEYS', '0'],
    ]) {
      expect(() => parseConfig({ [name]: value }))
        .to.throw(ConfigError)
        .with.property('message')
        .that.includes(`${name}: `);
    }
  });

  it('30 events sent beside 3 hostile ones are all answered 201 and stored', async () => {
    const { base, workspaceId, withScopes } = await workspace();
    const client = await withScopes(['events:write']);
    const hostile = `{"type":"click","metadata":${deepText(5000)}}`;
    const requests = Array.from({ length: 33 }, (_, i) =>
      i % 11 === 5
        ? post(client, `${base}/events`, hostile)
        : client.post(`${base}/events`, { type: 'click', email: `n${i}@example.com`, metadata: { i } }),
    );
    const responses = await Promise.all(requests);
    for (const [i, response] of responses.entries()) {
      expect(response.status, response.text).to.equal(i % 11 === 5 ? 400 : 201);
    }
    expect(await eventCount(workspaceId)).to.equal(30);
  });

  it('refuses an array or an object past its size limit, naming it', async () => {
    const { admin, base, workspaceId } = await workspace();
    const items = `[${Array(10_001).fill(0).join(',')}]`;
    expectFieldError(
      await post(admin, `${base}/events`, `{"type":"t","metadata":{"list":${items}}}`),
      'body.metadata.list',
      /at most 10000 items/,
    );
    const keys = `{${Array.from({ length: 1001 }, (_, i) => `"k${i}":1`).join(',')}}`;
    expectFieldError(
      await post(admin, `${base}/contacts`, `{"attributes":${keys}}`),
      'body.attributes',
      /at most 1000 keys/,
    );
    const fits = `{${Array.from({ length: 1000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    const stored = await post(admin, `${base}/contacts`, `{"attributes":${fits}}`);
    expect(stored.status, stored.text).to.equal(201);
    expect(await contactCount(workspaceId)).to.equal(1);
  });

  it('refuses a number that would be stored changed, naming its path', async () => {
    const { admin, base, workspaceId } = await workspace();
    for (const [number, message] of [
      ['1e400', /beyond what can be stored/],
      ['-1e400', /beyond what can be stored/],
      ['12345678901234567890', /would be stored as 12345678901234567000/],
      ['9007199254740993', /would be stored as 9007199254740992/],
      ['0.1000000000000000055511151231257827', /would be stored as 0.1\b/],
      ['1e-400', /would be stored as 0\b/],
    ] as const) {
      const response = await post(admin, `${base}/events`, `{"type":"t","metadata":{"price":${number}}}`);
      expectFieldError(response, 'body.metadata.price', message);
    }
    const inList = await post(admin, `${base}/contacts`, `{"attributes":{"prices":[1, 2, 1e999]}}`);
    expectFieldError(inList, 'body.attributes.prices.2', /beyond what can be stored/);
    expect(await eventCount(workspaceId)).to.equal(0);
  });

  it('stores numbers that a double keeps exactly as they were written', async () => {
    const { admin, base } = await workspace();
    const written =
      '{"big":1e20,"exact":9007199254740992,"tenth":0.1,"zero":-0,"e":2.5E-3,"long":123456789.12345678}';
    const response = await post(admin, `${base}/events`, `{"type":"t","metadata":${written}}`);
    expect(response.status, response.text).to.equal(201);
    expect(response.body.metadata).to.deep.equal({
      big: 1e20,
      exact: 9007199254740992,
      tenth: 0.1,
      zero: 0,
      e: 0.0025,
      long: 123456789.12345678,
    });
    const read = await admin.get(`${base}/events?limit=1`);
    expect(read.status, read.text).to.equal(200);
    expect(read.body[0].metadata, read.text).to.deep.equal(response.body.metadata);
  });
});
