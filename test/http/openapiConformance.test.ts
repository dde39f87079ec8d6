// The statuses the request guards in app.ts answer (CSRF 403, 415 for a non-JSON body, 413 for
// one over 1 MB) and the 403 for an API key on a session-only route are documented on every
// operation that can answer them, including those that take no body.
import { request } from 'node:http';
import { expect } from 'chai';
import { Client, type TestResponse } from '../support/client.ts';
import { documentedOperation, expectDocumented } from '../support/documented.ts';
import { keyClient, uniqueEmail, workspaceWithAdmin } from '../support/factories.ts';
import { type OpenApiDocument, operationsOf } from '../support/openapiOperations.ts';
import { server } from '../support/server.ts';

const CROSS_SITE = { origin: 'https://evil.example' };
const TEXT_BODY = { body: 'x', headers: { 'content-type': 'text/plain' } };

describe('OpenAPI document: guard statuses', () => {
  it('lists 413 and 415 on every changing operation, and 403 on every one a browser could forge', async () => {
    const document = (await new Client().get('/api/openapi')).body as OpenApiDocument;
    const missing: string[] = [];
    for (const { method, path, operation } of operationsOf(document)) {
      if (method === 'get') continue;
      const statuses = Object.keys(operation.responses);
      // Server-to-server receivers (inbound webhooks, provider feedback) carry no cookie to forge.
      const serverToServer = /^\/api\/(webhooks\/inbound|feedback)\//.test(path);
      const expected = serverToServer ? ['413', '415'] : ['403', '413', '415'];
      for (const status of expected)
        if (!statuses.includes(status)) missing.push(`${method.toUpperCase()} ${path}: ${status}`);
    }
    expect(missing).to.deep.equal([]);
  });

  it('documents the cross-site 403 of registration', async () => {
    const response = await new Client().post(
      '/api/auth/register',
      { name: 'Eve', email: uniqueEmail(), password: 'correct horse battery' },
      { headers: CROSS_SITE },
    );
    expect(response.status).to.equal(403);
    await expectDocumented('post', '/api/auth/register', response);
  });

  it('documents the 403 an API key gets on the session-only workspace routes', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { client: keyed } = await keyClient(client, workspaceId, ['contacts:read']);
    const listed = await keyed.get('/api/workspaces');
    expect(listed.status).to.equal(403);
    await expectDocumented('get', '/api/workspaces', listed);
    const created = await keyed.post('/api/workspaces', { name: 'By key' });
    expect(created.status).to.equal(403);
    await expectDocumented('post', '/api/workspaces', created);
  });

  it('leaves a body on a GET unread, so it answers what the document lists', async () => {
    // fetch refuses a GET with a body; node:http sends one.
    const body = JSON.stringify({ padding: 'x'.repeat(1_100_000) });
    const response = await new Promise<TestResponse>((resolve, reject) => {
      const sent = request(`${server().baseUrl}/api/health`, {
        method: 'GET',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      sent.on('error', reject);
      sent.on('response', async (answer) => {
        const chunks: Buffer[] = [];
        for await (const chunk of answer) chunks.push(chunk as Buffer);
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = new Headers(answer.headers as Record<string, string>);
        resolve({ status: answer.statusCode ?? 0, headers, body: JSON.parse(text), text });
      });
      sent.end(body);
    });
    expect(response.status, response.text).to.equal(200);
    await expectDocumented('get', '/api/health', response);
  });

  it('documents 415 and 413 on operations that take no body', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const endpoint = await client.post(`/api/workspaces/${workspaceId}/webhooks`, { direction: 'INBOUND' });
    expect(endpoint.status, endpoint.text).to.equal(201);
    const path = '/api/workspaces/{workspaceId}/webhooks/{webhookId}';
    const url = `/api/workspaces/${workspaceId}/webhooks/${endpoint.body.id}`;

    const textDelete = await client.request('DELETE', url, TEXT_BODY);
    expect(textDelete.status).to.equal(415);
    await expectDocumented('delete', path, textDelete);

    const rotate = `${url}/rotate-secret`;
    const textRotate = await client.request('POST', rotate, TEXT_BODY);
    expect(textRotate.status).to.equal(415);
    await expectDocumented('post', `${path}/rotate-secret`, textRotate);
    const hugeRotate = await client.request('POST', rotate, {
      body: JSON.stringify({ padding: 'x'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(hugeRotate.status).to.equal(413);
    await expectDocumented('post', `${path}/rotate-secret`, hugeRotate);

    const signout = await client.request('POST', '/api/auth/signout', TEXT_BODY);
    expect(signout.status).to.equal(415);
    await expectDocumented('post', '/api/auth/signout', signout);
    expect(Object.keys((await documentedOperation('delete', path)).responses)).to.include('403');
  });
});
