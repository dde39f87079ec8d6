// `?key=<API key>` is the simple integrations' way to authenticate, on every route: no operation of
// the served OpenAPI document may refuse it as an unknown query field.
import { expect } from 'chai';
import { SCOPES } from '../../src/http/scopes.ts';
import { Client } from '../support/client.ts';
import { keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { fillPath, type OpenApiDocument, operationsOf } from '../support/openapiOperations.ts';

describe('API key in the query string', () => {
  it('is taken by every operation of the OpenAPI document, never refused as a field', async () => {
    const document = (await new Client().get('/api/openapi')).body as OpenApiDocument;
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const { key } = await keyClient(admin, workspaceId, [...SCOPES]);
    const anonymous = new Client();
    const refused: string[] = [];
    for (const { method, path, operation } of operationsOf(document)) {
      const url = `${fillPath(path, workspaceId)}?key=${encodeURIComponent(key)}`;
      // An empty body: the query is validated before the body, so a 400 about `key` would show first.
      const json = operation.requestBody ? {} : undefined;
      const response = await anonymous.request(method.toUpperCase(), url, { json });
      const aboutKey = (response.body?.errors ?? []).some(
        (error: { path: string }) => error.path === 'query.key',
      );
      if (response.status >= 500 || aboutKey)
        refused.push(`${method.toUpperCase()} ${path}: ${response.status} ${response.text}`);
    }
    expect(refused).to.deep.equal([]);
  });

  it('lists webhook deliveries with ?key=', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const { key } = await keyClient(admin, workspaceId, ['webhooks:read']);
    const response = await new Client().get(
      `/api/workspaces/${workspaceId}/webhooks/deliveries?key=${encodeURIComponent(key)}&limit=10`,
    );
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.include({ page: 1, limit: 10 });
  });
});
