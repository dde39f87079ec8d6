import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { expectProblem, signedInUser, workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';

/** No response may carry a stack trace, SQL or internal file paths. */
function expectNoInternals(text: string) {
  expect(text).not.to.match(/\bat .+\(.*:\d+:\d+\)/);
  expect(text).not.to.match(/node_modules|\/src\/|\.ts:\d+/);
  expect(text).not.to.match(/\b(select|insert|update|delete) .* (from|into|set|where) /i);
}

describe('http: CSRF protection of cookie-authenticated /api requests', () => {
  it('refuses a state-changing request with a non-JSON body (415)', async () => {
    const { client } = await signedInUser();
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const response = await client.request('POST', '/api/workspaces', {
        body: '{"name":"sneaky"}',
        headers: { 'content-type': type },
      });
      expectProblem(response, 415);
    }
    expect((await client.get('/api/workspaces')).body).to.deep.equal([]);
  });

  it('refuses a request whose Sec-Fetch-Site says cross-site or same-site (403)', async () => {
    const { client } = await signedInUser();
    for (const site of ['cross-site', 'same-site']) {
      const response = await client.post(
        '/api/workspaces',
        { name: 'x' },
        { headers: { 'sec-fetch-site': site } },
      );
      const problem = expectProblem(response, 403);
      expect(problem.type).to.match(/cross-site-request$/);
    }
    expect((await client.get('/api/workspaces')).body).to.deep.equal([]);
  });

  it('applies the cross-site check to a cookie request with an empty ?key= (it presents no key)', async () => {
    const { client } = await signedInUser();
    const response = await client.post(
      '/api/workspaces?key=',
      { name: 'x' },
      { headers: { 'sec-fetch-site': 'cross-site' } },
    );
    expect(expectProblem(response, 403).type).to.match(/cross-site-request$/);
    expect((await client.get('/api/workspaces')).body).to.deep.equal([]);
  });

  it('refuses a request from a foreign Origin (403) and accepts its own origin', async () => {
    const { client } = await signedInUser();
    const foreign = await client.post(
      '/api/workspaces',
      { name: 'x' },
      { headers: { origin: 'https://evil.example' } },
    );
    expectProblem(foreign, 403);
    const own = await client.post(
      '/api/workspaces',
      { name: 'ok' },
      { headers: { origin: server().baseUrl } },
    );
    expect(own.status, own.text).to.equal(201);
  });

  it('protects sign-out and sign-in too', async () => {
    const { client } = await signedInUser();
    expectProblem(
      await client.post('/api/auth/signout', undefined, { headers: { 'sec-fetch-site': 'cross-site' } }),
      403,
    );
    expect((await client.get('/api/auth/session')).status).to.equal(200);
    const signin = await new Client().post(
      '/api/auth/signin',
      { email: 'a@example.com', password: 'x' },
      {
        headers: { origin: 'https://evil.example' },
      },
    );
    expectProblem(signin, 403);
  });

  it('lets safe methods through whatever their origin', async () => {
    const { client } = await signedInUser();
    const response = await client.get('/api/auth/session', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(response.status).to.equal(200);
  });
});

describe('http: errors are problem+json', () => {
  it('answers an unknown /api route with 404', async () => {
    const problem = expectProblem(await new Client().get('/api/nothing-here'), 404);
    expect(problem.type).to.equal('urn:switchboard:problem:not-found');
  });

  it('answers an unknown page with 404 problem+json', async () => {
    expectProblem(await new Client().get('/no-such-page'), 404);
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const response = await new Client().request('PUT', '/api/workspaces');
    expectProblem(response, 405);
    expect(response.headers.get('allow')).to.equal('GET, POST');
    const keys = await new Client().request('PATCH', '/api/workspaces/ws_x/keys');
    expectProblem(keys, 405);
    expect(keys.headers.get('allow')).to.equal('GET, POST, DELETE');
    // A static path is its own resource, not an id of the parameter route beside it.
    const merge = await new Client().request('GET', '/api/workspaces/ws_x/contacts/merge');
    expectProblem(merge, 405);
    expect(merge.headers.get('allow')).to.equal('POST');
  });

  it('answers malformed JSON with 400', async () => {
    const response = await new Client().request('POST', '/api/auth/register', {
      body: '{"name": "Ada",',
      headers: { 'content-type': 'application/json' },
    });
    const problem = expectProblem(response, 400);
    expect(problem.type).to.match(/malformed-json$/);
    expectNoInternals(response.text);
  });

  it('answers a body over 1 MB with 413', async () => {
    const { client } = await signedInUser();
    const response = await client.post('/api/workspaces', { name: 'x', padding: 'p'.repeat(1024 * 1024) });
    expectProblem(response, 413);
  });

  it('answers a body with an unsupported charset with 415', async () => {
    const response = await new Client().request('POST', '/api/auth/register', {
      body: '{}',
      headers: { 'content-type': 'application/json; charset=ebcdic' },
    });
    expectProblem(response, 415);
  });

  it('answers a badly percent-encoded path parameter with 400, not 500', async () => {
    const { client } = await signedInUser();
    const response = await client.get('/api/workspaces/%E0%A4%A/members');
    expectProblem(response, 400);
    expectNoInternals(response.text);
  });

  it('answers NUL characters in the body, path or query with 400, not 500', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const responses = [
      await new Client().post('/api/auth/register', {
        name: 'A\u0000B',
        email: 'nul@example.com',
        password: 'password1',
      }),
      await client.post('/api/workspaces', { name: 'nul\u0000' }),
      await client.post(`/api/workspaces/${workspaceId}/keys`, {
        name: 'k\u0000',
        scopes: ['contacts:read'],
      }),
      await client.get('/api/workspaces/ws_%00/members'),
      await client.get(`/api/workspaces/${workspaceId}/members?x=%00`),
    ];
    for (const response of responses) {
      expectProblem(response, 400);
      expectNoInternals(response.text);
    }
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const echoed = await new Client().get('/api/health', { headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers.get('x-request-id')).to.equal('trace-123');
    const replaced = await new Client().get('/api/health', { headers: { 'x-request-id': 'bad id\u00e9' } });
    expect(replaced.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('includes the request id in problems', async () => {
    const response = await new Client().get('/api/nothing', { headers: { 'x-request-id': 'req-42' } });
    expect(expectProblem(response, 404)).to.include({ requestId: 'req-42' });
  });
});
