// Publishable keys: made by ADMINs, used from the pages on their origins only, never in place of a
// secret key; identity tokens decide who a browser may claim to be.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { runCli } from '../support/cli.ts';
import { Client } from '../support/client.ts';
import { expectProblem, keyClient, signedInUser, workspaceWithAdmin } from '../support/factories.ts';
import { type SecondWeb, server, startSecondWeb } from '../support/server.ts';

const ORIGIN = 'https://shop.example.com';

async function setup(allowedEventTypes = ['page_view']) {
  const { client: admin, workspaceId } = await workspaceWithAdmin();
  const created = await admin.post(`/api/workspaces/${workspaceId}/publishable-keys`, {
    name: 'Website',
    allowedOrigins: [ORIGIN],
    allowedEventTypes,
  });
  expect(created.status, created.text).to.equal(201);
  return { admin, workspaceId, pk: created.body.key as string, keyId: created.body.id as string };
}

function publicPost(path: string, json: unknown, headers: Record<string, string>) {
  return new Client().request('POST', path, { json, headers });
}

function preflight(path: string, origin: string, requestHeaders = 'content-type, x-publishable-key') {
  return fetch(server().baseUrl + path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': requestHeaders,
    },
  });
}

describe('publishable keys', () => {
  it('are created, listed, changed and revoked by ADMINs, and shown in full', async () => {
    const { admin, workspaceId, pk, keyId } = await setup();
    expect(pk).to.match(/^pk_[A-Za-z0-9_-]{32}$/);
    const listed = await admin.get(`/api/workspaces/${workspaceId}/publishable-keys`);
    expect(listed.body.map((key: { key: string }) => key.key)).to.deep.equal([pk]);
    const changed = await admin.patch(`/api/workspaces/${workspaceId}/publishable-keys/${keyId}`, {
      allowedEventTypes: ['page_view', 'signup'],
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body.allowedEventTypes).to.deep.equal(['page_view', 'signup']);
    const revoked = await admin.delete(`/api/workspaces/${workspaceId}/publishable-keys/${keyId}`);
    expect(revoked.status).to.equal(204);
    const refused = await publicPost(
      '/api/public/events',
      { type: 'page_view' },
      { 'x-publishable-key': pk },
    );
    expectProblem(refused, 401);
  });

  it('refuses an origin that is not a bare origin, naming the field', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const response = await admin.post(`/api/workspaces/${workspaceId}/publishable-keys`, {
      name: 'Website',
      allowedOrigins: ['https://shop.example.com/path'],
    });
    const problem = expectProblem(response, 400) as unknown as { errors: { path: string }[] };
    expect(problem.errors[0].path).to.equal('body.allowedOrigins.0');
  });

  it('are managed by ADMINs and by API keys with publishableKeys scopes; members are refused', async () => {
    const { admin, workspaceId, keyId } = await setup();
    const path = `/api/workspaces/${workspaceId}/publishable-keys`;
    const { client: unscoped } = await keyClient(admin, workspaceId, ['events:write']);
    expect(expectProblem(await unscoped.get(path), 403).detail).to.contain('publishableKeys:read');
    const { client: reader } = await keyClient(admin, workspaceId, ['publishableKeys:read']);
    expect((await reader.get(path)).body.map((key: { id: string }) => key.id)).to.deep.equal([keyId]);
    const created = await reader.post(path, { name: 'App', allowedOrigins: [ORIGIN] });
    expect(expectProblem(created, 403).detail).to.contain('publishableKeys:write');
    expectProblem(await reader.get(`/api/workspaces/${workspaceId}/identity-secret`), 403);

    const { client: writer } = await keyClient(admin, workspaceId, ['publishableKeys:write']);
    const made = await writer.post(path, { name: 'App', allowedOrigins: [ORIGIN] });
    expect(made.status, made.text).to.equal(201);
    const changed = await writer.patch(`${path}/${made.body.id}`, { name: 'App 2' });
    expect(changed.status, changed.text).to.equal(200);
    expect((await writer.delete(`${path}/${made.body.id}`)).status).to.equal(204);
    const secret = await writer.get(`/api/workspaces/${workspaceId}/identity-secret`);
    expect(secret.status, secret.text).to.equal(200);
    const rotated = await writer.post(`/api/workspaces/${workspaceId}/identity-secret/rotate`);
    expect(rotated.status, rotated.text).to.equal(200);
    expect(rotated.body.secret).to.not.equal(secret.body.secret);

    const { client: stranger } = await signedInUser();
    expectProblem(await stranger.get(path), 404);
  });

  it('are managed from the CLI as over the API, the identity secret too', async function () {
    this.timeout(150_000); // nine CLI processes, each a few seconds on a loaded machine
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const cli = async (args: string[]) => {
      const run = await runCli([...args, '--workspace', workspaceId, '--json']);
      expect(run.code, run.stderr).to.equal(0);
      return JSON.parse(run.stdout);
    };
    const created = await cli([
      'publishable-keys',
      'create',
      '--name',
      'Website',
      '--allowed-origins',
      `${ORIGIN}, https://www.example.com`,
      '--allowed-event-types',
      'page_view',
    ]);
    expect(created).to.include({ name: 'Website' });
    expect(created.allowedOrigins).to.deep.equal([ORIGIN, 'https://www.example.com']);
    const listed = await cli(['publishable-keys', 'list']);
    expect(listed).to.deep.equal((await admin.get(`/api/workspaces/${workspaceId}/publishable-keys`)).body);
    const changed = await cli([
      'publishable-keys',
      'update',
      '--key-id',
      created.id,
      '--allowed-event-types',
      '',
    ]);
    expect(changed.allowedEventTypes).to.deep.equal([]);
    expect(await cli(['publishable-keys', 'revoke', '--key-id', created.id])).to.deep.equal({
      revoked: created.id,
    });
    expect(await cli(['publishable-keys', 'list'])).to.deep.equal([]);

    const shown = await cli(['identity-secret', 'show']);
    expect(shown.secret).to.equal(
      (await admin.get(`/api/workspaces/${workspaceId}/identity-secret`)).body.secret,
    );
    const rotated = await cli(['identity-secret', 'rotate']);
    expect(rotated.secret).to.not.equal(shown.secret);
    expect((await admin.get(`/api/workspaces/${workspaceId}/identity-secret`)).body.secret).to.equal(
      rotated.secret,
    );

    const bad = await runCli([
      'publishable-keys',
      'create',
      '--workspace',
      workspaceId,
      '--name',
      'x',
      '--allowed-origins',
      'https://shop.example.com/path',
    ]);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.contain('error: --allowed-origins (item 1): must be an origin');
  });

  it('cannot call the rest of the API', async () => {
    const { workspaceId, pk } = await setup();
    const asBearer = await new Client(pk).get(`/api/workspaces/${workspaceId}/contacts`);
    expectProblem(asBearer, 401);
    const asQuery = await new Client().get(`/api/workspaces/${workspaceId}/contacts?key=${pk}`);
    expectProblem(asQuery, 401);
  });
});

describe('public endpoints: CORS', () => {
  it("answers a preflight from one of the key's origins, and refuses others", async () => {
    await setup();
    const allowed = await preflight('/api/public/events', ORIGIN);
    expect(allowed.status).to.equal(204);
    expect(allowed.headers.get('access-control-allow-origin')).to.equal(ORIGIN);
    expect(allowed.headers.get('access-control-allow-headers')).to.match(/X-Publishable-Key/);
    const refused = await preflight('/api/public/events', 'https://evil.example.net');
    expect(refused.status).to.equal(403);
    expect(refused.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('refuses a preflight that asks to send an Authorization header', async () => {
    await setup();
    const refused = await preflight('/api/public/events', ORIGIN, 'authorization, content-type');
    expect(refused.status).to.equal(403);
    expect(refused.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('checks a preflight against the key named in the query', async () => {
    const { pk } = await setup();
    const { pk: other } = await setup();
    const { admin, workspaceId } = await setup();
    await admin.post(`/api/workspaces/${workspaceId}/publishable-keys`, {
      name: 'Elsewhere',
      allowedOrigins: ['https://elsewhere.example.org'],
    });
    expect((await preflight(`/api/public/events?key=${pk}`, ORIGIN)).status).to.equal(204);
    expect(
      (await preflight(`/api/public/events?key=${other}`, 'https://elsewhere.example.org')).status,
    ).to.equal(403);
  });

  it('stores an event from an allowed origin and lets the page read the answer', async () => {
    const { admin, workspaceId, pk } = await setup();
    const response = await publicPost(
      '/api/public/events',
      { type: 'page_view', anonymousId: 'browser-1', pageUrl: `${ORIGIN}/pricing`, utmSource: 'news' },
      { 'x-publishable-key': pk, origin: ORIGIN, 'sec-fetch-site': 'cross-site' },
    );
    expect(response.status, response.text).to.equal(201);
    expect(response.headers.get('access-control-allow-origin')).to.equal(ORIGIN);
    expect(response.body).to.have.keys(['id', 'type', 'timestamp']);
    const events = await admin.get(`/api/workspaces/${workspaceId}/events?type=page_view`);
    expect(events.body).to.have.length(1);
    expect(events.body[0]).to.include({ pageUrl: `${ORIGIN}/pricing`, utmSource: 'news' });
    expect(events.body[0].contact).to.not.equal(null);
  });

  it('refuses a request from an origin not on the list, storing nothing', async () => {
    const { admin, workspaceId, pk } = await setup();
    const response = await publicPost(
      '/api/public/events',
      { type: 'page_view' },
      { 'x-publishable-key': pk, origin: 'https://evil.example.net' },
    );
    expect(expectProblem(response, 403)).to.include({ type: 'urn:switchboard:problem:origin-not-allowed' });
    expect(response.headers.get('access-control-allow-origin')).to.equal(null);
    expect((await admin.get(`/api/workspaces/${workspaceId}/events`)).body).to.have.length(0);
  });

  it('refuses a secret key on the public path, whether as Bearer or in the publishable-key header', async () => {
    const { admin, workspaceId } = await setup();
    const { key } = await keyClient(admin, workspaceId, ['events:write']);
    const presented: Record<string, string>[] = [
      { authorization: `Bearer ${key}` },
      { 'x-publishable-key': key },
    ];
    for (const headers of presented) {
      const response = await publicPost(
        '/api/public/events',
        { type: 'page_view' },
        { ...headers, origin: ORIGIN },
      );
      expect(expectProblem(response, 403)).to.include({ type: 'urn:switchboard:problem:secret-key-refused' });
      expect(response.headers.get('access-control-allow-origin')).to.equal(null);
    }
  });

  it('refuses event types the key does not allow', async () => {
    const { pk } = await setup(['page_view']);
    const response = await publicPost(
      '/api/public/events',
      { type: 'purchase' },
      { 'x-publishable-key': pk, origin: ORIGIN },
    );
    expect(expectProblem(response, 403)).to.include({
      type: 'urn:switchboard:problem:event-type-not-allowed',
    });
    expect(response.headers.get('access-control-allow-origin')).to.equal(ORIGIN);
  });
});

describe('identity tokens', () => {
  it('let a page act as the contact its backend vouched for, and refuse a forged token', async () => {
    const { admin, workspaceId, pk } = await setup();
    const secret = await admin.get(`/api/workspaces/${workspaceId}/identity-secret`);
    expect(secret.status, secret.text).to.equal(200);
    const email = 'Ada@Example.com';
    const token = createHmac('sha256', secret.body.secret).update(email).digest('hex');
    const headers = { 'x-publishable-key': pk, origin: ORIGIN };
    const ok = await publicPost(
      '/api/public/events',
      { type: 'page_view', email, identityToken: token },
      headers,
    );
    expect(ok.status, ok.text).to.equal(201);
    const forged = createHmac('sha256', 'not the secret').update(email).digest('hex');
    const refused = await publicPost(
      '/api/public/events',
      { type: 'page_view', email: 'eve@example.com', identityToken: token },
      headers,
    );
    expect(expectProblem(refused, 403)).to.include({
      type: 'urn:switchboard:problem:identity-token-invalid',
    });
    const wrongSecret = await publicPost(
      '/api/public/events',
      { type: 'page_view', email, identityToken: forged },
      headers,
    );
    expectProblem(wrongSecret, 403);
    const missing = await publicPost('/api/public/events', { type: 'page_view', email }, headers);
    expectProblem(missing, 400);
    const events = await admin.get(`/api/workspaces/${workspaceId}/events`);
    expect(events.body.map((event: { contact: { email: string } }) => event.contact.email)).to.deep.equal([
      'ada@example.com',
    ]);
  });

  it('stop working when the secret is rotated', async () => {
    const { admin, workspaceId, pk } = await setup();
    const before = (await admin.get(`/api/workspaces/${workspaceId}/identity-secret`)).body.secret;
    const rotated = await admin.post(`/api/workspaces/${workspaceId}/identity-secret/rotate`);
    expect(rotated.status, rotated.text).to.equal(200);
    expect(rotated.body.secret).to.not.equal(before);
    const token = createHmac('sha256', before).update('ct_x').digest('hex');
    const response = await publicPost(
      '/api/public/events',
      { type: 'page_view', contactId: 'ct_x', identityToken: token },
      { 'x-publishable-key': pk },
    );
    expectProblem(response, 403);
  });
});

describe('public endpoints: limits', () => {
  let web: SecondWeb;
  before(async () => {
    web = await startSecondWeb({
      PUBLIC_RATE_LIMIT_PER_KEY: 3,
      PUBLIC_RATE_LIMIT_PER_IP: 2,
      // Windows are fixed on the clock: with a minute's, a test crossing a minute's end saw its
      // count start again (CI: 201 where the third request was a 429). An hour's end is rarely met.
      PUBLIC_RATE_WINDOW_MS: 3_600_000,
      trustProxy: true,
    });
  });
  after(() => web.stop());

  const post = (pk: string, address: string) =>
    fetch(`${web.url}/api/public/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-publishable-key': pk,
        origin: ORIGIN,
        'x-forwarded-for': address,
      },
      body: JSON.stringify({ type: 'page_view' }),
    });

  it('limits requests per client address and per key, with Retry-After the page can read', async () => {
    const { admin, workspaceId, pk } = await setup();
    const address = `198.51.100.${Math.floor(Math.random() * 250)}`;
    expect((await post(pk, address)).status).to.equal(201);
    expect((await post(pk, address)).status).to.equal(201);
    const perAddress = await post(pk, address);
    expect(perAddress.status).to.equal(429);
    expect(Number(perAddress.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(perAddress.headers.get('access-control-expose-headers')).to.match(/Retry-After/);
    expect((await post(pk, '203.0.113.9')).status).to.equal(201);
    const perKey = await post(pk, '203.0.113.10');
    expect(perKey.status).to.equal(429);
    expect(perKey.headers.get('access-control-allow-origin')).to.equal(ORIGIN);
    expect((await admin.get(`/api/workspaces/${workspaceId}/events`)).body).to.have.length(3);
  });
});
