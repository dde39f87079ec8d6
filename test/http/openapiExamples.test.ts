// What /docs shows must be what the service does: each error response's example has its own status
// and type, the Problem schema lists only what is sent, and a request example can be executed.
import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { type OpenApiDocument, operationsOf } from '../support/openapiOperations.ts';

type Problem = { type: string; title: string; status: number; detail: string; errors?: unknown[] };
type Schema = { properties: Record<string, Record<string, unknown>>; example?: Record<string, unknown> };

const PREFIX = 'urn:switchboard:problem:';
/** The type each status is answered with when no route-specific code applies. */
const TYPES: Record<string, string> = {
  400: 'validation-error',
  401: 'unauthorized',
  404: 'not-found',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  429: 'rate-limited',
  503: 'unavailable',
};

async function served() {
  return (await new Client().get('/api/openapi')).body as OpenApiDocument;
}

describe('OpenAPI document: examples', () => {
  it("gives every error response an example with that response's status and type", async () => {
    const wrong: string[] = [];
    for (const { method, path, operation } of operationsOf(await served())) {
      for (const [code, response] of Object.entries(operation.responses)) {
        if (Number(code) < 400) continue;
        // The health check's 503 is its own JSON body, not a problem.
        const media = response.content?.['application/problem+json'] as { example?: Problem } | undefined;
        if (!media) continue;
        const example = media.example;
        const where = `${method.toUpperCase()} ${path} ${code}`;
        if (!example) wrong.push(`${where}: no example`);
        else if (example.status !== Number(code))
          wrong.push(`${where}: example has status ${example.status}`);
        else if (!example.type.startsWith(PREFIX) || typeof example.title !== 'string' || !example.detail)
          wrong.push(`${where}: example is not a problem`);
        else if (TYPES[code] && example.type !== PREFIX + TYPES[code])
          wrong.push(`${where}: example has type ${example.type}`);
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it('pre-fills no parameter in /docs "Try it out": examples are schema `examples`, not `example`', async () => {
    const prefilled: string[] = [];
    type Parameter = {
      name: string;
      in: string;
      example?: unknown;
      examples?: unknown;
      schema?: { example?: unknown; examples?: unknown[] };
    };
    let workspaceId: Parameter | undefined;
    for (const { method, path, operation } of operationsOf(await served())) {
      for (const parameter of (operation.parameters ?? []) as Parameter[]) {
        // What Swagger UI fills a field with (besides a default, which the server would use anyway).
        if (
          parameter.example !== undefined ||
          parameter.examples !== undefined ||
          parameter.schema?.example !== undefined
        )
          prefilled.push(`${method.toUpperCase()} ${path} ${parameter.in}:${parameter.name}`);
        if (parameter.name === 'workspaceId') workspaceId = parameter;
      }
    }
    expect(prefilled).to.deep.equal([]);
    // Still documented, where no form reads it.
    expect(workspaceId?.schema?.examples).to.deep.equal(['ws_01JD2Z3K4M5N6P7Q8R9S0T1V2W']);
  });

  it('lists in the Problem schema only the members the service sends', async () => {
    const problem = (await served()).components.schemas.Problem as Schema;
    expect(Object.keys(problem.properties).sort()).to.deep.equal(
      ['detail', 'errors', 'requestId', 'status', 'title', 'type'].sort(),
    );
  });

  it('documents the 1–200 length of an event type that ingest enforces', async () => {
    const schemas = (await served()).components.schemas;
    const type = (schemas.IngestEventRequest as Schema).properties.type;
    expect(type).to.include({ minLength: 1, maxLength: 200 });
  });

  it('gives key creation an example that can be executed as it stands', async () => {
    const create = (await served()).components.schemas.CreateApiKeyRequest as Schema;
    expect(create.example).to.be.an('object');
    const expiresAt = create.properties.expiresAt.example;
    if (expiresAt !== undefined) expect(Date.parse(String(expiresAt))).to.be.above(Date.now());
    const { client, workspaceId } = await workspaceWithAdmin();
    const created = await client.post(`/api/workspaces/${workspaceId}/keys`, create.example);
    expect(created.status, created.text).to.equal(201);
  });
});
