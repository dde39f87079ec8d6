// Hostile input on every operation of the served OpenAPI document: "every bad input gets a clear 4xx
// problem+json and changes nothing; no input may produce a 500". For each operation, as an ADMIN
// session of a real workspace (and with a full-scope API key where the route takes keys), it sends a
// bounded, deterministic set of inputs derived from the operation's parameters and request body:
// wrong JSON types, missing required fields, 100 KB strings, 200- and 5,000-deep nesting, arrays of
// 20,000 items and objects of 2,000 keys, unicode edge cases,
// out-of-range numbers, hostile path and query values, ids of another workspace, and bodies that are
// not JSON objects at all. Requests go out through node:http so paths reach the server unnormalised.
import http from 'node:http';
import { expect } from 'chai';
import { SCOPES } from '../../src/http/scopes.ts';
import { Client } from '../support/client.ts';
import { keyClient, PASSWORD, signedInUser, uniqueEmail, workspaceWithAdmin } from '../support/factories.ts';
import { fakeId, type OpenApiDocument, type Operation, operationsOf } from '../support/openapiOperations.ts';
import { server } from '../support/server.ts';

type Auth = { cookie?: string; key?: string };
type Answer = { status: number; contentType: string; text: string };
type Case = { label: string; path: string; body?: string; contentType?: string };
type Entry = { method: string; path: string; operation: Operation };
type Schema = Record<string, unknown>;

// Cases per operation and pass: the session pass sends the first SESSION_CAP of an operation's cases
// in a seeded order, the key pass the next KEY_CAP (or, where the session pass sent all, the first).
const SESSION_CAP = 120;
const KEY_CAP = 40;
const HUGE = 'a'.repeat(100 * 1024);
const LONG_SEGMENT = 'A'.repeat(5 * 1024);
const SQLISH = "' or 1=1--";
const UNICODE = ['\ud800', '\udfff', '😀', '\u202eRTL\u202c', 'zero\u200bwidth', '\ufeff', '\u0000'];
const RAW_NUMBERS = ['1e309', '-1e309', '-0', '1.5', '-1', '1e20', '9007199254740993', '2147483648'];
const TIMESTAMPS = [
  '0000-01-01T00:00:00.000Z',
  '0001-01-01T00:30:00+01:00',
  '9999-12-31T23:59:59.999Z',
  '2024-02-30T00:00:00.000Z',
  '2024-01-01',
];
const DURATIONS = ['P99999999999Y', 'P1000000000D', 'PT99999999999999999999S', 'PT0S', '-P1D', 'P1.5D', 'P'];
const WRONG_TYPES: unknown[] = ['string', 1, true, {}, [], null];
const HUGE_ARRAY = Array.from({ length: 20_000 }, () => 0);
/** 5,000 nested arrays, as raw text: JSON.stringify cannot nest that deep. */
const DEEP_TEXT = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
const MANY_KEYS = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]));

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function send(auth: Auth, method: string, path: string, body?: string, contentType?: string) {
  const headers: Record<string, string> = {};
  if (auth.cookie) headers.cookie = auth.cookie;
  if (auth.key) headers.authorization = `Bearer ${auth.key}`;
  if (body !== undefined) {
    headers['content-type'] = contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const url = new URL(server().baseUrl);
  return new Promise<Answer>((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, method, path, headers, agent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** What is wrong with an answer to a hostile request ('' when nothing). */
function defect(answer: Answer): string {
  if (answer.status >= 500) return `answered ${answer.status}`;
  if (answer.status < 400) return '';
  if (!answer.contentType.startsWith('application/problem+json'))
    return `${answer.status} is not problem+json`;
  let problem: Record<string, unknown>;
  try {
    problem = JSON.parse(answer.text);
  } catch {
    return `${answer.status} problem+json does not parse`;
  }
  const fields = ['type', 'title', 'detail'].every((name) => typeof problem[name] === 'string');
  return fields && problem.status === answer.status
    ? ''
    : `${answer.status} problem lacks type/title/status/detail`;
}

/** mulberry32: a fixed-seed PRNG, so the sample of cases is the same on every run. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The cases in a seeded order, so that every run sends the same ones. */
function shuffled<T>(items: T[], seed: number): T[] {
  const order = [...items];
  const next = random(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** A seed from an operation id (the same on every run). */
const seedOf = (text: string) =>
  [...text].reduce((hash, char) => Math.imul(hash ^ char.charCodeAt(0), 16777619), 2166136261);

function deep(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

// Raw JSON numbers (1e309, -0) cannot come out of JSON.stringify: a marker string stands in for them.
const raw = (text: string) => `@@raw:${text}@@`;
const serialise = (value: unknown) =>
  JSON.stringify(value).replace(/"@@raw:([^@]+)@@"/g, (_, text: string) => text);

type Path = (string | number)[];

function setAt(root: unknown, path: Path, value: unknown, remove = false): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

function resolve(document: OpenApiDocument, schema: unknown): Schema {
  let current = schema as Schema | undefined;
  for (let i = 0; i < 10 && current; i++) {
    if (typeof current.$ref === 'string') {
      current = document.components.schemas[current.$ref.split('/').pop() as string] as Schema;
    } else if (Array.isArray(current.allOf) && current.allOf.length === 1) {
      current = current.allOf[0] as Schema;
    } else break;
  }
  return current ?? {};
}

const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** Hostile replacements for the value at one place of a valid body, by the kind of value it holds. */
function hostileValues(value: unknown): unknown[] {
  const kind = kindOf(value);
  const values = WRONG_TYPES.filter((candidate) => kindOf(candidate) !== kind);
  values.push(deep(200), raw(DEEP_TEXT), HUGE_ARRAY, MANY_KEYS);
  if (kind === 'string') values.push(HUGE, '', SQLISH, ...UNICODE, `${value}${'\u0301'.repeat(50)}`);
  if (kind === 'string' && /^\d{4}-\d\d-\d\d/.test(value as string)) values.push(...TIMESTAMPS);
  if (kind === 'string' && /^P/.test(value as string)) values.push(...DURATIONS);
  if (kind === 'number') values.push(...RAW_NUMBERS.map(raw), 1.5, -1);
  if (kind === 'array') {
    const first = (value as unknown[])[0];
    values.push(
      Array.from({ length: 1001 }, () => first ?? 1),
      [deep(200)],
      [HUGE],
    );
  }
  if (kind === 'object') {
    const hostileKeys = [HUGE, '..', 'a..b', '.', 'a.b.c', SQLISH, '$[*]', '\ud800', '😀', '__proto__', ''];
    for (const key of hostileKeys) values.push({ ...(value as object), [key]: 'x' });
    values.push(
      { ...(value as object), nested: deep(200) },
      { ...(value as object), nested: raw(DEEP_TEXT) },
      { ...(value as object), big: raw('1e309') },
    );
  }
  return values;
}

/** Every place in a valid body (objects' keys, arrays' first item), at most `depth` down. */
function places(value: unknown, depth = 5, prefix: Path = []): Path[] {
  if (depth === 0 || typeof value !== 'object' || value === null) return [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.length > 0
      ? [[0, value[0]]]
      : []
    : Object.entries(value);
  return entries.flatMap(([key, item]) => [[...prefix, key], ...places(item, depth - 1, [...prefix, key])]);
}

function bodyCases(
  document: OpenApiDocument,
  entry: Entry,
  seedBody: unknown,
  path: string,
  otherIds: string[],
): Case[] {
  const junk: [string, string, string?][] = [
    ['not JSON', 'this is not json'],
    ['empty body', ''],
    ['truncated JSON', '{"a":'],
    ['trailing garbage', '{}garbage'],
    ['top-level array', '[]'],
    ['top-level array of the body', serialise([seedBody])],
    ['top-level number', '42'],
    ['top-level string', '"text"'],
    ['top-level null', 'null'],
    ['top-level true', 'true'],
    ['top-level 200-deep object', serialise(deep(200))],
    ['top-level 200-deep array', `${'['.repeat(200)}${']'.repeat(200)}`],
    ['top-level 5,000-deep array', DEEP_TEXT],
    ['top-level object of 2,000 keys', serialise({ ...(seedBody as object), ...MANY_KEYS })],
    ['lone surrogate key', '{"\\ud800":1}'],
    ['NUL escape key', '{"\\u0000":1}'],
    ['JSON as text/plain', serialise(seedBody), 'text/plain'],
    ['JSON as application/merge-patch+json', serialise(seedBody), 'application/merge-patch+json'],
  ];
  const cases: Case[] = junk.map(([label, body, contentType]) => ({ label, path, body, contentType }));
  if (!entry.operation.requestBody) return cases.slice(0, 3);
  const schema = resolve(
    document,
    (entry.operation.requestBody as { content: Record<string, { schema: unknown }> }).content[
      'application/json'
    ].schema,
  );
  for (const name of (schema.required as string[] | undefined) ?? []) {
    cases.push({ label: `missing ${name}`, path, body: serialise(setAt(seedBody, [name], undefined, true)) });
  }
  cases.push({ label: 'unknown property', path, body: serialise({ ...(seedBody as object), zzz: 1 }) });
  // Properties the schema has that the seed leaves out get hostile values too.
  const seeded = seedBody as Record<string, unknown>;
  const extra = Object.keys((schema.properties as Schema | undefined) ?? {}).filter(
    (name) => !(name in seeded),
  );
  const targets: [Path, unknown][] = [
    ...places(seedBody).map((place): [Path, unknown] => [place, valueAt(seedBody, place)]),
    ...extra.map((name): [Path, unknown] => [[name], 'string']),
  ];
  for (const [place, value] of targets) {
    // An id field also gets real ids of another workspace and of other kinds.
    const ids = /Id$/.test(String(place[place.length - 1])) ? otherIds : [];
    for (const hostile of [...hostileValues(value), ...ids]) {
      // Made when sent (getters): a pass sends at most SESSION_CAP of an operation's cases, and a
      // body may hold 100 KB of hostile value; the cases past the cap are never serialised.
      cases.push({
        path,
        get label() {
          return `${place.join('.')} = ${serialise(hostile).slice(0, 40)}`;
        },
        get body() {
          return serialise(setAt(seedBody, place, hostile));
        },
      });
    }
  }
  return cases;
}

function valueAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, step) => (node as Record<string | number, unknown>)[step], root);
}

type Parameter = { name: string; in: string; schema?: Schema };

function queryValues(document: OpenApiDocument, parameter: Parameter, ids: string[]): string[] {
  const schema = resolve(document, parameter.schema);
  const values = [
    '',
    SQLISH,
    LONG_SEGMENT,
    ...UNICODE.filter((text) => text.isWellFormed()).map(encodeURIComponent),
    '%ED%A0%80',
    '%ED%B0%80',
    '%',
    '%ZZ',
  ];
  values.push('a&zzz=1', `1&${parameter.name}=2`, `x&${parameter.name}[a]=1`);
  if (schema.type === 'integer' || schema.type === 'number') {
    values.push(...RAW_NUMBERS, '0', '99999999999999999999', '1e3', '0x10', ' 1', 'Infinity', 'NaN', 'abc');
  }
  if (schema.type === 'boolean') values.push('yes', '1', 'TRUE');
  if (schema.format === 'date-time') {
    values.push('not-a-date', '9999-99-99T00:00:00.000Z', '+275760-09-13T00:00:00.001Z', ...TIMESTAMPS);
  }
  if (/Id$/.test(parameter.name)) values.push(...ids);
  return values;
}

/** Hostile values for a path parameter, already percent-encoded where they need to be. */
function pathValues(name: string, related: { other?: string; wrongPrefix?: string }): string[] {
  const prefix = fakeId(name).split('_')[0];
  const values = [
    LONG_SEGMENT,
    `${prefix}_${LONG_SEGMENT}`,
    '%00',
    `${prefix}_%00`,
    '%2F',
    `${prefix}_01JD%2F..%2F`,
    '..',
    '.',
    'a..b',
    encodeURIComponent(SQLISH),
    `${prefix}_${encodeURIComponent(SQLISH)}`,
    `${prefix}_01JD2Z3K4M5N6P7Q8R9S0T1V2W'`,
    '%ED%A0%80',
    '%',
    '%ZZ',
    encodeURIComponent('😀\u202eRTL\u200b'),
    '1e309',
    '-0',
    `${prefix}_01jd2z3k4m5n6p7q8r9s0t1v2w`,
    'x_01JD2Z3K4M5N6P7Q8R9S0T1V2W',
  ];
  if (related.other) values.push(related.other);
  if (related.wrongPrefix) values.push(related.wrongPrefix);
  return values;
}

type Resources = {
  workspaceId: string;
  admin: Client;
  ids: Record<string, string>;
};

async function created(response: Promise<{ status: number; text: string; body: { id: string } }>) {
  const answer = await response;
  expect(answer.status, answer.text).to.be.oneOf([200, 201, 202]);
  return answer.body;
}

/** A workspace with one real resource of every kind the API has. */
async function workspaceWithResources(): Promise<Resources> {
  const { client: admin, workspaceId } = await workspaceWithAdmin('Fuzz');
  const base = `/api/workspaces/${workspaceId}`;
  const contact = await created(
    admin.post(`${base}/contacts`, { email: uniqueEmail('c'), attributes: { plan: 'pro' } }),
  );
  const second = await created(admin.post(`${base}/contacts`, { email: uniqueEmail('c') }));
  const segment = await created(
    admin.post(`${base}/segments`, { name: 'Pro', rules: { attribute: 'plan', op: 'eq', value: 'pro' } }),
  );
  const campaign = await created(admin.post(`${base}/campaigns`, CAMPAIGN));
  const rule = await created(
    admin.post(`${base}/scoring-rules`, { name: 'R', eventType: 'signup', points: 5 }),
  );
  const webhook = await created(
    admin.post(`${base}/webhooks`, { url: 'https://example.com/hook', direction: 'OUTBOUND' }),
  );
  const inbound = await created(admin.post(`${base}/webhooks`, { direction: 'INBOUND', signed: false }));
  const receipt = await new Client().post(`/api/webhooks/inbound/${inbound.id}`, { type: 'signup' });
  expect(receipt.status, receipt.text).to.be.oneOf([200, 202]);
  const { keyId } = await keyClient(admin, workspaceId, ['contacts:read']);
  const member = await signedInUser('Member');
  const added = await admin.post(`${base}/members`, { email: member.user.email, role: 'MEMBER' });
  expect(added.status, added.text).to.equal(201);
  return {
    workspaceId,
    admin,
    ids: {
      contactId: contact.id,
      secondContactId: second.id,
      segmentId: segment.id,
      campaignId: campaign.id,
      ruleId: rule.id,
      webhookId: webhook.id,
      endpointId: inbound.id,
      deliveryId: receipt.body.deliveryId,
      keyId,
      userId: member.user.id,
      memberEmail: member.user.email,
    },
  };
}

const CONDITION = [{ path: 'plan', op: 'eq', value: 'pro' }];
const CAMPAIGN = {
  name: 'Welcome',
  trigger: { type: 'event', eventType: 'signup', where: CONDITION },
  steps: [
    { type: 'send', channel: 'email', subject: 'Hi', body: 'Hello' },
    { type: 'wait', duration: 'P1D' },
    { type: 'send', channel: 'push', title: 'T', body: 'B', url: 'https://example.com' },
  ],
  reentry: 'never',
};
const SEGMENT_RULES = {
  all: [
    { attribute: 'address.city', op: 'eq', value: 'Paris' },
    {
      any: [
        { field: 'email', op: 'contains', value: '@' },
        { not: { field: 'createdAt', op: 'gt', value: '2024-01-01' } },
      ],
    },
    {
      event: 'purchase',
      count: { gte: 2 },
      within: 'P30D',
      where: [{ path: 'amount', op: 'gt', value: 100 }],
    },
    { leadScore: { gte: 10 } },
    { attribute: 'tags', op: 'in', value: ['a', 'b'] },
  ],
};
const EVENT = {
  type: 'signup',
  email: 'fuzz.event@example.com',
  metadata: { plan: 'pro', amount: 5, nested: { a: [1, 2] } },
  timestamp: '2024-01-01T00:00:00.000Z',
  pageUrl: 'https://example.com/p',
};

/** A valid body for each operation, the base every body mutation starts from. */
function seedBody(operationId: string, resources: Resources, throwaway: { email: string }): unknown {
  const ids = resources.ids;
  const seeds: Record<string, unknown> = {
    'auth.register': { name: 'Fuzz', email: uniqueEmail('fuzz'), password: PASSWORD },
    'auth.signin': { email: throwaway.email, password: PASSWORD },
    'keys.create': { name: 'k', scopes: ['contacts:read'], expiresAt: '2099-01-01T00:00:00.000Z' },
    'keys.revoke': { keyId: fakeId('key') },
    'campaigns.create': CAMPAIGN,
    'campaigns.update': { ...CAMPAIGN, trigger: { type: 'segment_entered', segmentId: ids.segmentId } },
    'contacts.create': {
      email: uniqueEmail('fz'),
      firstName: 'F',
      lastName: 'Z',
      phone: '+15550100',
      attributes: { plan: 'pro', address: { city: 'Paris' } },
    },
    'contacts.merge': { primaryContactId: ids.contactId, secondaryContactId: fakeId('contact') },
    'contacts.update': { firstName: 'G', phone: null, attributes: { plan: 'basic', gone: null } },
    'events.create': EVENT,
    'events.batch': { events: [EVENT] },
    'scoringRules.create': {
      name: 'r',
      eventType: 'signup',
      points: 5,
      where: CONDITION,
      repeatable: false,
      cooldown: 'P1D',
      active: true,
    },
    'scoringRules.update': { name: 'r2', points: 3, where: CONDITION, cooldown: 'PT1H' },
    'scoringSettings.put': { decay: { points: 5, every: 'P7D' } },
    'segments.create': { name: 's', description: 'd', rules: SEGMENT_RULES },
    'segments.update': { name: 's2', description: null, rules: SEGMENT_RULES },
    'webhooks.inbound.receive': {
      type: 'signup',
      email: 'fuzz.inbound@example.com',
      firstName: 'I',
      metadata: { plan: 'pro' },
    },
    'webhooks.create': {
      name: 'w',
      url: 'https://example.com/hook2',
      events: ['contact.created'],
      direction: 'OUTBOUND',
      active: false,
    },
    'webhooks.update': {
      name: 'w2',
      url: 'https://example.com/hook3',
      events: ['contact.updated'],
      active: false,
    },
    'workspaces.create': { name: 'ws' },
    'members.add': { email: ids.memberEmail, role: 'MEMBER' },
    'members.update': { role: 'MEMBER' },
  };
  return seeds[operationId] ?? {};
}

// Non-GET operations that act on the resource in their path by their mere call (no body to refuse):
// they are fuzzed at a fake id, so that the hostile cases cannot delete or transition the real one.
const actsByCall = (entry: Entry) =>
  entry.method === 'delete' || (entry.method === 'post' && !entry.operation.requestBody);

function realPath(entry: Entry, resources: Resources, overrides: Record<string, string> = {}) {
  return entry.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name in overrides) return overrides[name];
    if (name === 'workspaceId') return resources.workspaceId;
    if (actsByCall(entry)) return fakeId(name);
    return resources.ids[name] ?? fakeId(name);
  });
}

function casesFor(
  document: OpenApiDocument,
  entry: Entry,
  a: Resources,
  b: Resources,
  throwaway: { email: string },
): Case[] {
  const path = realPath(entry, a);
  const cases: Case[] = [];
  const parameters = ((entry.operation as { parameters?: Parameter[] }).parameters ?? []) as Parameter[];
  const kinds = [
    'contactId',
    'segmentId',
    'campaignId',
    'ruleId',
    'webhookId',
    'deliveryId',
    'endpointId',
    'userId',
  ];
  for (const parameter of parameters.filter(({ in: where }) => where === 'path')) {
    const name = parameter.name;
    const wrongKind = kinds.find(
      (kind) => kind !== name && a.ids[kind]?.split('_')[0] !== fakeId(name).split('_')[0],
    );
    const related =
      name === 'workspaceId'
        ? { other: b.workspaceId, wrongPrefix: a.ids.contactId }
        : { other: b.ids[name], wrongPrefix: wrongKind ? a.ids[wrongKind] : undefined };
    for (const value of pathValues(name, related)) {
      cases.push({
        label: `path ${name}=${value.slice(0, 40)}`,
        path: realPath(entry, a, { [name]: value }),
      });
    }
  }
  const otherIds = [b.ids.contactId, b.ids.segmentId, b.ids.endpointId, a.ids.campaignId];
  for (const parameter of parameters.filter(({ in: where }) => where === 'query')) {
    for (const value of queryValues(document, parameter, otherIds).map((text) => text.replace(/ /g, '%20'))) {
      cases.push({
        label: `query ${parameter.name}=${value.slice(0, 40)}`,
        path: `${path}?${parameter.name}=${value}`,
      });
    }
  }
  if (parameters.some(({ in: where }) => where === 'query')) {
    cases.push({ label: 'query 5 KB of parameters', path: `${path}?${'p=1&'.repeat(1200)}` });
  }
  if (entry.method !== 'get')
    cases.push(
      ...bodyCases(document, entry, seedBody(entry.operation.operationId, a, throwaway), path, [
        ...otherIds,
        b.ids.keyId,
        b.ids.campaignId,
      ]),
    );
  return cases;
}

/** How many items a list answers with: `total` of a page, or the length of a plain list. */
async function countOf(auth: Auth, path: string): Promise<number> {
  const answer = await send(auth, 'GET', path);
  expect(answer.status, answer.text).to.equal(200);
  const body = JSON.parse(answer.text);
  return typeof body.total === 'number' ? body.total : (body.data ?? body).length;
}

// Creating operations and the list whose count must grow by their successes and nothing else.
const COUNTED: Record<string, string> = {
  'contacts.create': '/contacts',
  'segments.create': '/segments',
  'campaigns.create': '/campaigns',
  'scoringRules.create': '/scoring-rules',
  'webhooks.create': '/webhooks',
  'keys.create': '/keys',
  'members.add': '/invitations',
};
// Operations after which the caller may no longer be in the workspace.
const ENDS_THE_WORKSPACE = new Set(['workspaces.delete', 'workspaces.leave']);
// Updating operations whose resource must read the same after every refused update.
const UNCHANGED: Record<string, string> = {
  'contacts.update': '/contacts/{contactId}',
  'campaigns.update': '/campaigns/{campaignId}',
  'scoringRules.update': '/scoring-rules/{ruleId}',
  'segments.update': '/segments/{segmentId}',
  'members.update': '/members',
  'webhooks.update': '/webhooks',
  'scoringSettings.put': '/scoring-settings',
};

describe('hostile input on every operation (from the OpenAPI document)', function () {
  // One pass sends every operation's cases, and the document grows with each feature: on a busy
  // machine the session pass alone took over two minutes.
  this.timeout(300_000);
  let document: OpenApiDocument;
  let entries: Entry[];
  let a: Resources;
  let b: Resources;
  let snapshotOfB: string[];
  const bReads = () => [
    `/contacts/${b.ids.contactId}`,
    `/segments/${b.ids.segmentId}`,
    `/campaigns/${b.ids.campaignId}`,
    `/scoring-rules/${b.ids.ruleId}`,
    '/webhooks',
    '/keys',
    '/members',
  ];
  const readB = () =>
    Promise.all(
      bReads().map(async (path) => {
        const answer = await send(
          { cookie: b.admin.cookieHeader },
          'GET',
          `/api/workspaces/${b.workspaceId}${path}`,
        );
        // Counts that background work keeps moving (deliveries, segment sizes) are not the point.
        return `${answer.status} ${answer.text.replace(/"(_count|count|computedAt|status)":("\w*"|\d+|\{[^}]*\})/g, '')}`;
      }),
    );

  before(async () => {
    document = (await new Client().get('/api/openapi')).body;
    entries = operationsOf(document);
    a = await workspaceWithResources();
    b = await workspaceWithResources();
    snapshotOfB = await readB();
  });

  after(() => agent.destroy());

  /** Where two reads part, with some context: what a refused request is said to have changed. */
  function firstDifference(before: string, after: string): string {
    let at = 0;
    while (at < before.length && before[at] === after[at]) at++;
    return `…${before.slice(Math.max(0, at - 80), at + 80)}… became …${after.slice(Math.max(0, at - 80), at + 80)}…`;
  }

  /**
   * A segment's computation (status, count, computedAt) is the worker's, finishing an earlier
   * success; so are an endpoint's delivery counts (a message sent earlier fails in the worker and
   * its message.failed is delivered meanwhile).
   */
  function withoutWorkerFields(text: string): string {
    text = text.replace(/"_count":\{[^}]*\},?/g, '');
    try {
      const { status, count, computedAt, ...rest } = JSON.parse(text);
      return status === 'computing' || status === 'ready' ? JSON.stringify(rest) : text;
    } catch {
      return text;
    }
  }

  /** Sends a window of the operation's cases (in seeded order): the key pass takes up where the session pass stopped. */
  async function fuzz(entry: Entry, auth: Auth, window: [number, number], throwaway: { email: string }) {
    const all = shuffled(casesFor(document, entry, a, b, throwaway), seedOf(entry.operation.operationId));
    const [from, to] = window[0] >= all.length ? [0, window[1] - window[0]] : window;
    const cases = all.slice(from, to);
    const found: string[] = [];
    const base = `/api/workspaces/${a.workspaceId}`;
    const counted = COUNTED[entry.operation.operationId];
    const before = counted
      ? await countOf(auth.key ? { cookie: a.admin.cookieHeader } : auth, base + counted)
      : 0;
    const watched = auth.key ? undefined : UNCHANGED[entry.operation.operationId];
    // A read that a busy machine answered 503 (the workspace's pool share, the acquire timeout)
    // says nothing about the state: it is asked again.
    const read = async () => {
      const path = realPath({ ...entry, path: `/api/workspaces/{workspaceId}${watched}` }, a);
      let answer = await send({ cookie: a.admin.cookieHeader }, 'GET', path);
      for (let tries = 1; answer.status === 503 && tries < 20; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        answer = await send({ cookie: a.admin.cookieHeader }, 'GET', path);
      }
      return withoutWorkerFields(answer.text);
    };
    let snapshot = watched ? await read() : '';
    let successes = 0;
    const check = (item: Case, answer: Answer) => {
      const wrong = defect(answer);
      if (wrong)
        found.push(
          `${entry.method.toUpperCase()} ${entry.path} [${item.label}] → ${wrong}: ${answer.text.slice(0, 200)}`,
        );
      if (answer.status === 201) successes++;
    };
    // Reads change nothing, so they go four at a time; writes go one by one, each checked.
    const parallel = entry.method === 'get' ? 4 : 1;
    for (let start = 0; start < cases.length; start += parallel) {
      const batch = cases.slice(start, start + parallel);
      const answers = await Promise.all(
        batch.map((item) => send(auth, entry.method.toUpperCase(), item.path, item.body, item.contentType)),
      );
      for (const [index, item] of batch.entries()) check(item, answers[index]);
      if (watched) {
        const now = await read();
        if (answers[0].status >= 400 && now !== snapshot) {
          found.push(
            `${entry.method.toUpperCase()} ${entry.path} [${batch[0].label}] → ${answers[0].status} yet changed it: ${firstDifference(snapshot, now)}`,
          );
        }
        snapshot = now;
      }
    }
    if (counted) {
      const after = await countOf(auth.key ? { cookie: a.admin.cookieHeader } : auth, base + counted);
      if (after !== before + successes) {
        found.push(
          `${entry.operation.operationId}: ${counted} went from ${before} to ${after} with ${successes} created`,
        );
      }
    }
    return { found, sent: cases.length };
  }

  it('answers every hostile input to every operation, as an ADMIN session, with a 4xx problem or a success', async () => {
    const found: string[] = [];
    let sent = 0;
    for (const entry of entries.filter(({ path }) => !path.startsWith('/api/webhooks/inbound/'))) {
      // /api/auth operations sign in and out: each runs on a throwaway user's own session.
      const throwaway = entry.path.startsWith('/api/auth/') ? await signedInUser('Throwaway') : undefined;
      const auth = { cookie: (throwaway?.client ?? a.admin).cookieHeader };
      // Deleting or leaving the workspace (a fuzzed confirmName may be the name a fuzzed rename
      // set) would end every later case: those run on a workspace of their own.
      const shared = a;
      if (ENDS_THE_WORKSPACE.has(entry.operation.operationId)) {
        const own = await workspaceWithAdmin('Fuzz');
        a = { ...shared, workspaceId: own.workspaceId, admin: own.client };
      }
      try {
        const result = await fuzz(
          entry,
          ENDS_THE_WORKSPACE.has(entry.operation.operationId) ? { cookie: a.admin.cookieHeader } : auth,
          [0, SESSION_CAP],
          throwaway?.user ?? { email: uniqueEmail('nobody') },
        );
        found.push(...result.found);
        sent += result.sent;
      } finally {
        a = shared;
      }
    }
    expect(found, found.join('\n')).to.deep.equal([]);
    expect(sent).to.be.greaterThan(entries.length * 10);
  });

  it('answers every hostile input with a full-scope API key where the route takes keys', async () => {
    const { key } = await keyClient(a.admin, a.workspaceId, [...SCOPES]);
    const found: string[] = [];
    const keyed = entries.filter(({ operation }) =>
      (operation.security ?? []).some((rule) => 'bearerKey' in rule),
    );
    expect(keyed.length).to.be.greaterThan(20);
    for (const entry of keyed)
      found.push(
        ...(await fuzz(entry, { key }, [SESSION_CAP, SESSION_CAP + KEY_CAP], { email: uniqueEmail() })).found,
      );
    expect(found, found.join('\n')).to.deep.equal([]);
  });

  it('answers every hostile input to an unsigned INBOUND webhook endpoint', async () => {
    const entry = entries.find(({ path }) => path.startsWith('/api/webhooks/inbound/')) as Entry;
    const before = await countOf(
      { cookie: a.admin.cookieHeader },
      `/api/workspaces/${a.workspaceId}/webhooks/deliveries?endpointId=${a.ids.endpointId}`,
    );
    const { found } = await fuzz(entry, {}, [0, SESSION_CAP], { email: uniqueEmail() });
    expect(found, found.join('\n')).to.deep.equal([]);
    const after = await countOf(
      { cookie: a.admin.cookieHeader },
      `/api/workspaces/${a.workspaceId}/webhooks/deliveries?endpointId=${a.ids.endpointId}`,
    );
    expect(after).to.be.at.least(before);
  });

  it('answers concurrent normal events 201 and stores them, whatever hostile requests are sent beside them', async () => {
    const auth = { cookie: a.admin.cookieHeader };
    const base = `/api/workspaces/${a.workspaceId}`;
    const type = `neighbour.${Date.now()}`;
    const event = (metadata: unknown) => serialise({ type: 'hostile', metadata });
    const hostile: [string, string][] = [
      [`${base}/events`, event({ a: raw(DEEP_TEXT) })],
      [`${base}/events`, `{"type":"hostile","metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`],
      [`${base}/events`, event({ list: HUGE_ARRAY })],
      [`${base}/events`, event(MANY_KEYS)],
      [`${base}/events`, event({ price: raw('1e400'), id: raw('12345678901234567890') })],
      [`${base}/events/batch`, serialise({ events: [{ type: 'hostile', metadata: { a: raw(DEEP_TEXT) } }] })],
      [`${base}/contacts`, serialise({ attributes: { a: raw(DEEP_TEXT) } })],
      [`/api/webhooks/inbound/${a.ids.endpointId}`, event({ a: raw(DEEP_TEXT) })],
    ];
    const normal = Array.from({ length: 30 }, (_, i) => serialise({ type, metadata: { i } }));
    const answers = await Promise.all([
      ...normal.map((body) => send(auth, 'POST', `${base}/events`, body)),
      ...hostile.map(([path, body]) => send(auth, 'POST', path, body)),
    ]);
    const normalAnswers = answers.slice(0, normal.length);
    expect(normalAnswers.map((answer) => answer.status)).to.deep.equal(normal.map(() => 201));
    for (const answer of answers.slice(normal.length)) expect(defect(answer), answer.text).to.equal('');
    const stored = await send(auth, 'GET', `${base}/events?type=${type}&limit=200`);
    expect(JSON.parse(stored.text)).to.have.length(normal.length);
  });

  it('left the other workspace exactly as it was', async () => {
    expect(await readB()).to.deep.equal(snapshotOfB);
  });
});
