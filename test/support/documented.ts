// Holds real responses against the OpenAPI document the service serves, the way an outside client
// reads it: the operation must list the status, the body must match that status's JSON Schema
// (with the document's components), and the headers it declares must be sent (required ones) with
// values of their schemas. The zod check in route.ts cannot see a document that the generator
// renders wrongly; this can.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { Client, type TestResponse } from './client.ts';
import {
  type HeaderObject,
  type OpenApiDocument,
  type Operation,
  operationsOf,
} from './openapiOperations.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

let loaded: Promise<{ document: OpenApiDocument; ajv: Ajv2020 }> | undefined;

function load() {
  loaded ??= (async () => {
    const response = await new Client().get('/api/openapi');
    expect(response.status).to.equal(200);
    const document = response.body as OpenApiDocument;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', components: document.components });
    return { document, ajv };
  })();
  return loaded;
}

/** The served document's operation for this method and path template (`/api/…/{webhookId}`). */
export async function documentedOperation(method: string, path: string): Promise<Operation> {
  const { document } = await load();
  const operation = document.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is not in the document`).to.not.equal(undefined);
  return operation as Operation;
}

/** Fails unless the document lists the response's status for the operation and the body matches. */
export async function expectDocumented(method: string, path: string, response: TestResponse) {
  const { ajv } = await load();
  const operation = await documentedOperation(method, path);
  const where = `${method.toUpperCase()} ${path} → ${response.status}`;
  const documented = operation.responses[String(response.status)];
  expect(documented, `${where} is not documented: ${response.text}`).to.not.equal(undefined);
  expectDocumentedHeaders(ajv, where, documented.headers ?? {}, response);
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0];
  if (!documented.content) {
    expect(response.text, `${where} documents no body`).to.equal('');
    return;
  }
  const media = documented.content[contentType] as { schema: object } | undefined;
  expect(media, `${where}: ${contentType} is not a documented content type`).to.not.equal(undefined);
  const schema = JSON.parse(
    JSON.stringify(media?.schema).replaceAll('"#/components/', '"openapi#/components/'),
  ) as object;
  const validate = ajv.compile(schema);
  const valid = validate(response.body);
  expect(valid, `${where}: ${JSON.stringify(validate.errors)}\n${response.text}`).to.equal(true);
}

/** Every header the document promises on this response is sent, with a value of its schema. */
function expectDocumentedHeaders(
  ajv: Ajv2020,
  where: string,
  headers: Record<string, HeaderObject>,
  response: TestResponse,
) {
  for (const [name, header] of Object.entries(headers)) {
    const value = response.headers.get(name);
    if (value === null) {
      expect(header.required, `${where}: the documented header ${name} is missing`).to.not.equal(true);
      continue;
    }
    const typed = header.schema.type === 'integer' || header.schema.type === 'number' ? Number(value) : value;
    const validate = ajv.compile(header.schema);
    expect(validate(typed), `${where}: header ${name}: ${value} ${JSON.stringify(validate.errors)}`).to.equal(
      true,
    );
  }
}

export { operationsOf };
