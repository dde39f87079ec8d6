// `switchboard import` holds each row to the limits the API holds a JSON body to (docs/guides/errors-and-limits.md,
// "Input limits"): numbers stored changed, nesting, keys and items, the body's size; a CSV row as the
// record it makes, whose header names no prototype property. Every refusal names its line, and the
// reason is the API's own, checked by sending the same row through the API.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { rowIds } from '../../src/imports/bulkIds.ts';
import { checkChunk } from '../../src/imports/checkChunk.ts';
import { csvRecords } from '../../src/imports/read.ts';
import { checkCsvRecord, csvRecord } from '../../src/imports/rows.ts';
import { workspace } from '../events/support.ts';
import type { Client } from '../support/client.ts';
import { countRows, importFileOf, importJson, runImport } from './support.ts';

const MEGABYTE = 1024 * 1024;
const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** A body of exactly `bytes` bytes: `{"email": …, "attributes": {"s": "xxx…"}}`. */
function bodyOfSize(email: string, bytes: number): string {
  const empty = `{"email":"${email}","attributes":{"s":""}}`;
  return `{"email":"${email}","attributes":{"s":"${'x'.repeat(bytes - empty.length)}"}}`;
}

/** What the API answers this exact body: the reason of a 400 as an import states it, or the status. */
async function apiReason(admin: Client, path: string, body: string): Promise<string> {
  const response = await admin.request('POST', path, {
    body,
    headers: { 'content-type': 'application/json' },
  });
  if (response.status !== 400) return String(response.status);
  const [error] = response.body.errors;
  return `${error.path.replace(/^body\./, '')}: ${error.message}`;
}

function rejectsOf(file: string) {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((text) => JSON.parse(text));
}

describe("import: rows held to the API's limits", function () {
  this.timeout(120_000);

  it('refuses each contact row the API refuses (numbers, nesting, keys, size), by line and with its reason', async () => {
    const { admin, base } = await workspace();
    const keys = Array.from({ length: 1001 }, (_, i) => `"k${i}":1`).join(',');
    const refused = [
      '{"email":"a@example.com","attributes":{"big":1e400}}',
      '{"email":"b@example.com","attributes":{"small":-1e400}}',
      '{"email":"c@example.com","attributes":{"id":12345678901234567890}}',
      '{"email":"d@example.com","attributes":{"id":9007199254740993}}',
      '{"email":"e@example.com","attributes":{"tiny":1e-400}}',
      `{"email":"f@example.com","attributes":{"deep":${deep(3000)}}}`,
      `{"email":"g@example.com","attributes":{${keys}}}`,
      `{"email":"h@example.com","attributes":{"s":"${'x'.repeat(5 * MEGABYTE)}"}}`,
      bodyOfSize('i@example.com', MEGABYTE + 1),
    ];
    const accepted = [
      '{"email":"ok1@example.com","attributes":{"n":1e20,"m":9007199254740992,"f":0.1,"z":-0,"e":2.5E-3}}',
      // The body is level 1, attributes level 2: 30 levels below them make 32.
      `{"email":"ok2@example.com","attributes":{"deep":${deep(30)}}}`,
      bodyOfSize('ok3@example.com', MEGABYTE),
    ];
    // The API's verdict on each body: the import must give the same (the size as its own reason).
    const expected: string[] = [];
    for (const body of refused) expected.push(await apiReason(admin, `${base}/contacts`, body));
    for (const body of accepted) expect(await apiReason(admin, `${base}/contacts`, body)).to.equal('201');
    expect(expected.slice(-2)).to.deep.equal(['413', '413']);
    const lines = [accepted[0], ...refused, accepted[1], accepted[2]];
    const file = importFileOf('ndjson', `${lines.join('\n')}\n`);
    // What the API made of them is not what the import must make: a fresh workspace.
    const target = await workspace();

    const run = await runImport('contacts', file, target.workspaceId);
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.contain('9 invalid rows; nothing was imported');
    for (const [index, reason] of expected.entries()) {
      const line = index + 2;
      if (reason === '413')
        expect(run.stderr).to.match(
          new RegExp(
            `line ${line}: record: is [\\d,]+ bytes, more than the API takes in a request body \\(1 MB`,
          ),
        );
      else expect(run.stderr).to.contain(`line ${line}: ${reason}`);
    }
    expect(run.stderr).to.contain('line 2: attributes.big: is a number beyond what can be stored');
    expect(run.stderr).to.contain(
      'line 4: attributes.id: is a number that would be stored as 12345678901234567000',
    );
    expect(run.stderr).to.contain('line 7: attributes.deep.0.0.0');
    expect(run.stderr).to.contain('line 8: attributes: must hold at most 1000 keys');
    const fiveMegabytes = Buffer.byteLength(refused[7]).toLocaleString('en');
    expect(run.stderr).to.contain(`line 9: record: is ${fiveMegabytes} bytes`);
    expect(await countRows('contacts', target.workspaceId)).to.equal(0);

    const rejects = `${file}.bad`;
    const summary = await importJson('contacts', file, target.workspaceId, [
      '--skip-invalid',
      '--rejects',
      rejects,
    ]);
    expect(summary).to.include({ rows: 12, created: 3, invalid: 9 });
    const rejected = rejectsOf(rejects);
    expect(rejected.map((row) => row.line)).to.deep.equal([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // A row refused on its text is not parsed: no record (1e400 would read as null).
    expect(rejected.every((row) => row.record === undefined)).to.equal(true);
    const stored = await target.admin.get(`${target.base}/contacts?email=ok1@example.com`);
    expect(stored.body.data[0].attributes).to.deep.equal({
      n: 1e20,
      m: 9007199254740992,
      f: 0.1,
      z: 0,
      e: 0.0025,
    });
  });

  it('refuses each event row the API refuses: deep metadata, -1e400, too many items, too large', async () => {
    const { admin, base } = await workspace();
    const items = `[${Array.from({ length: 10_001 }, () => '0').join(',')}]`;
    const refused = [
      `{"type":"visit","email":"a@example.com","metadata":{"a":{"b":${deep(40)}}}}`,
      '{"type":"visit","email":"a@example.com","metadata":{"price":-1e400}}',
      `{"type":"visit","email":"a@example.com","metadata":{"list":${items}}}`,
      `{"type":"visit","email":"a@example.com","metadata":{"n":123456789012345678}}`,
    ];
    const expected: string[] = [];
    for (const body of refused) expected.push(await apiReason(admin, `${base}/events`, body));
    expect(expected.every((reason) => reason.startsWith('metadata.'))).to.equal(true);
    const big = `{"type":"visit","email":"a@example.com","metadata":{"s":"${'y'.repeat(MEGABYTE)}"}}`;
    expect(await apiReason(admin, `${base}/events`, big)).to.equal('413');
    const file = importFileOf(
      'ndjson',
      `${[...refused, big, '{"type":"visit","email":"a@example.com","metadata":{"price":1e300}}'].join('\n')}\n`,
    );
    const target = await workspace();

    const run = await runImport('events', file, target.workspaceId);
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.contain('5 invalid rows; nothing was imported');
    for (const [index, reason] of expected.entries())
      expect(run.stderr).to.contain(`line ${index + 1}: ${reason}`);
    expect(run.stderr).to.contain('line 1: metadata.a.b.0.0.0');
    expect(run.stderr).to.contain('nests arrays and objects deeper than 32 levels');
    expect(run.stderr).to.contain('line 2: metadata.price: is a number beyond what can be stored');
    expect(run.stderr).to.contain('line 3: metadata.list: must hold at most 10000 items');
    expect(run.stderr).to.match(/line 5: record: is 1,048,6\d\d bytes, more than the API takes/);
    expect(await countRows('events', target.workspaceId)).to.equal(0);
  });

  it('applies the configured limits (JSON_MAX_*), as the API would with the same settings', async () => {
    const { workspaceId } = await workspace();
    const file = importFileOf(
      'ndjson',
      '{"email":"a@example.com","attributes":{"a":1,"b":2,"c":3}}\n' +
        '{"email":"b@example.com","attributes":{"a":[[1]]}}\n' +
        '{"email":"c@example.com","attributes":{"a":1,"b":2}}\n',
    );
    const run = await runImport('contacts', file, workspaceId, [], {
      JSON_MAX_OBJECT_KEYS: '2',
      JSON_MAX_DEPTH: '3',
    });
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.contain('2 invalid rows');
    expect(run.stderr).to.contain('line 1: attributes: must hold at most 2 keys');
    expect(run.stderr).to.contain('line 2: attributes.a.0: nests arrays and objects deeper than 3 levels');
  });

  it('CSV: a __proto__ column is refused by name, constructor and prototype are attributes as the API keeps them', async () => {
    const { admin, base, workspaceId } = await workspace();
    const api = await admin.post(`${base}/contacts`, {
      email: 'api@example.com',
      attributes: { constructor: 'c', prototype: 'p' },
    });
    expect(api.body.attributes).to.deep.equal({ constructor: 'c', prototype: 'p' });
    const file = importFileOf(
      'csv',
      'email,constructor,prototype,toString,__proto__\n' +
        'a@example.com,c,p,t,\n' +
        'b@example.com,c,p,t,x\n',
    );
    const run = await runImport('contacts', file, workspaceId);
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.contain(
      "line 3: __proto__: cannot be an attribute's name (the API drops it): rename the column",
    );
    expect(run.stderr).not.to.contain('[object Object]');

    const summary = await importJson('contacts', file, workspaceId, [
      '--skip-invalid',
      '--rejects',
      `${file}.bad`,
    ]);
    expect(summary).to.include({ created: 1, invalid: 1 });
    const stored = await admin.get(`${base}/contacts?email=a@example.com`);
    expect(stored.body.data[0].attributes).to.deep.equal({ constructor: 'c', prototype: 'p', toString: 't' });
    expect(rejectsOf(`${file}.bad`)[0].line).to.equal(3);
  });

  it('CSV: a row too large or with too many attributes for the API is refused by line', async () => {
    const { workspaceId } = await workspace();
    const columns = Array.from({ length: 1001 }, (_, i) => `c${i}`);
    const file = importFileOf(
      'csv',
      `email,note,${columns.join(',')}\n` +
        `ok@example.com,fine,${columns.map(() => '').join(',')}\n` +
        `wide@example.com,,${columns.map(() => 'v').join(',')}\n` +
        `big@example.com,${'z'.repeat(2 * MEGABYTE)},${columns.map(() => '').join(',')}\n`,
    );
    const run = await runImport('contacts', file, workspaceId);
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.contain('2 invalid rows');
    expect(run.stderr).to.contain('line 3: attributes: must hold at most 1000 keys');
    expect(run.stderr).to.match(
      /line 4: record: is 2,097,\d+ bytes, more than the API takes in a request body/,
    );
  });

  it('CSV events: a __proto__ or constructor column is named as the unknown field it is; a row past 1 MB is refused', async () => {
    const { workspaceId } = await workspace();
    const file = importFileOf(
      'csv',
      `type,email,__proto__,constructor\nvisit,a@example.com,x,y\n${'t'.repeat(2 * MEGABYTE)},b@example.com,,\n`,
    );
    const run = await runImport('events', file, workspaceId);
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.contain('line 2: __proto__: is not a known field');
    expect(run.stderr).to.contain('constructor: is not a known field');
    expect(run.stderr).not.to.contain('[object Object]');
    // As the API: the body's size is refused before its fields are read.
    expect(run.stderr).to.match(
      /line 3: record: is 2,097,\d+ bytes, more than the API takes in a request body/,
    );
  });

  it('no row of either format reaches a prototype: none is polluted, no record inherits', async () => {
    const limits = { maxDepth: 32, maxArrayItems: 10_000, maxObjectKeys: 1000 };
    const seed = { head: '01M8EN5M6W3XMMR3MB', random: 'H1S37HS9' };
    const hostile = [
      '{"email":"a@example.com","__proto__":{"polluted":1}}',
      '{"email":"a@example.com","attributes":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}}',
      '{"type":"x","email":"a@example.com","metadata":{"__proto__":{"polluted":1}},"constructor":{"prototype":{"polluted":1}}}',
    ];
    for (const kind of ['contacts', 'events'] as const) {
      const chunk = checkChunk({ kind, seed, keepRecords: true, limits }, rowIds(seed), {
        id: 0,
        bytes: new Uint8Array(Buffer.from(`${hostile.join('\n')}\n`)),
        firstLine: 1,
      });
      expect(chunk.rows).to.equal(3);
    }
    const file = importFileOf('csv', 'email,__proto__,constructor,prototype\na@example.com,x,y,z\n');
    for await (const record of csvRecords(file, { bytes: 0 })) {
      if (!('value' in record)) throw new Error(record.error);
      for (const kind of ['contacts', 'events'] as const) {
        const read = csvRecord(kind, record.value);
        if ('value' in read) {
          expect(Object.getPrototypeOf(read.value)).to.equal(Object.prototype);
          checkCsvRecord(kind, record.line, read.value, rowIds(seed), limits);
        }
      }
    }
    // biome-ignore lint/suspicious/noExplicitAny: checking that nothing reached Object.prototype
    expect(({} as any).polluted).to.equal(undefined);
    expect(Object.prototype).not.to.have.property('polluted');
  });
});
