import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { SCOPES } from '../../src/http/scopes.ts';
import { Client } from '../support/client.ts';
import { type OpenApiDocument, operationsOf } from '../support/openapiOperations.ts';

async function fetchDocument(): Promise<OpenApiDocument> {
  const response = await new Client().get('/api/openapi');
  expect(response.status).to.equal(200);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  return response.body;
}

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1.0 document', async () => {
    const document = await fetchDocument();
    expect(document.openapi).to.equal('3.1.0');
    const result = await new Validator().validate(structuredClone(document) as never);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it('names the service version and documents the three security schemes', async () => {
    const document = await fetchDocument();
    expect(document.info.version).to.equal('0.1.0');
    expect(document.components.securitySchemes).to.deep.include({
      sessionCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'sb.sid',
        description: document.components.securitySchemes.sessionCookie.description,
      },
    });
    expect(document.components.securitySchemes.bearerKey).to.include({ type: 'http', scheme: 'bearer' });
    expect(document.components.securitySchemes.keyQuery).to.include({
      type: 'apiKey',
      in: 'query',
      name: 'key',
    });
  });

  it('gives every operation a unique operationId, a summary and a problem+json error response', async () => {
    const operations = operationsOf(await fetchDocument());
    expect(operations.length).to.be.greaterThan(10);
    const missing: string[] = [];
    for (const { method, path, operation } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!operation.operationId) missing.push(`${where}: operationId`);
      if (!operation.summary) missing.push(`${where}: summary`);
      const problems = Object.entries(operation.responses).filter(
        ([status, response]) => Number(status) >= 400 && response.content?.['application/problem+json'],
      );
      if (problems.length === 0) missing.push(`${where}: problem+json error response`);
    }
    expect(missing).to.deep.equal([]);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('documents the foundation’s routes and the known scopes', async () => {
    const document = await fetchDocument();
    const ids = operationsOf(document).map(({ operation }) => operation.operationId);
    expect(ids).to.include.members([
      'auth.register',
      'auth.signin',
      'auth.signout',
      'auth.session',
      'health.get',
      'openapi.get',
      'workspaces.list',
      'workspaces.create',
      'workspaces.get',
      'members.list',
      'members.add',
      'members.update',
      'members.remove',
      'keys.list',
      'keys.create',
      'keys.revoke',
    ]);
    const scope = document.components.schemas.Scope as { enum: string[] };
    expect(scope.enum).to.deep.equal([...SCOPES]);
  });

  it('documents null on every contact field a PATCH clears, email included', async () => {
    const document = await fetchDocument();
    const properties = (
      document.components.schemas.UpdateContactRequest as { properties: Record<string, { type: unknown }> }
    ).properties;
    for (const field of ['email', 'firstName', 'lastName', 'phone', 'anonymousId']) {
      expect(properties[field].type, field).to.deep.equal(['string', 'null']);
    }
  });

  it('declares the headers routes read and send: Idempotency-Key, Idempotent-Replayed, Retry-After', async () => {
    const operations = operationsOf(await fetchDocument());
    const byId = new Map(operations.map((entry) => [entry.operation.operationId, entry.operation]));
    for (const id of ['events.create', 'events.batch']) {
      const header = byId.get(id)?.parameters?.find((parameter) => parameter.in === 'header');
      expect(header, id).to.deep.include({ name: 'Idempotency-Key', in: 'header', required: false });
      expect(header?.schema).to.deep.include({ type: 'string', maxLength: 255 });
    }
    const ingest = byId.get('events.create')?.responses ?? {};
    expect(ingest['200'].headers?.['Idempotent-Replayed']).to.deep.include({ required: true });
    expect(ingest['503'].headers?.['Retry-After']).to.deep.include({ required: true });
    const signin = byId.get('auth.signin')?.responses ?? {};
    expect(signin['429'].headers?.['Retry-After'].schema).to.deep.include({ type: 'integer' });
  });

  it('marks public routes as needing no credentials, and key routes as refusing API keys', async () => {
    const operations = operationsOf(await fetchDocument());
    const byId = new Map(operations.map((entry) => [entry.operation.operationId, entry.operation]));
    for (const id of ['auth.register', 'health.get', 'openapi.get'])
      expect(byId.get(id)?.security).to.deep.equal([]);
    for (const id of ['keys.list', 'keys.create', 'keys.revoke', 'members.add']) {
      expect(byId.get(id)?.security).to.deep.equal([{ sessionCookie: [] }]);
    }
  });
});
