// The OpenAPI registry. Routes register themselves through `defineRoute`, so the document served
// at /api/openapi is generated from the same zod schemas that validate requests: it cannot drift.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import '../core/zodOpenApi.ts';

export const registry = new OpenAPIRegistry();

export const SESSION_COOKIE = 'sb.sid';

registry.registerComponent('securitySchemes', 'sessionCookie', {
  type: 'apiKey',
  in: 'cookie',
  name: SESSION_COOKIE,
  description: 'Session cookie set by POST /api/auth/signin or the sign-in page at /auth/signin.',
});
registry.registerComponent('securitySchemes', 'bearerKey', {
  type: 'http',
  scheme: 'bearer',
  description: 'A workspace API key (`sb_…`) as `Authorization: Bearer <key>`.',
});
registry.registerComponent('securitySchemes', 'keyQuery', {
  type: 'apiKey',
  in: 'query',
  name: 'key',
  description: 'A workspace API key as the `key` query parameter, for simple integrations.',
});

export const ProblemSchema = registry.register(
  'Problem',
  z
    .object({
      type: z.string().openapi({
        description: '`urn:switchboard:problem:` and a stable code, such as `not-found` or `email-taken`.',
      }),
      title: z.string().openapi({ description: 'A short summary of the type.' }),
      status: z.number().int().openapi({ description: 'The HTTP status code.' }),
      detail: z.string().openapi({ description: 'What went wrong here, and what to do.' }),
      requestId: z.string().optional().openapi({ description: 'Quote it when you report a problem.' }),
      errors: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .optional()
        .openapi({ description: 'Present on validation errors: one entry per invalid field.' }),
    })
    .openapi({ description: 'An RFC 9457 problem details object, sent as application/problem+json.' }),
);

/** The header of 429 and 503 answers that says when to try again (core/errors.ts sets it). */
export const RetryAfterHeader = z.object({
  'Retry-After': z
    .number()
    .int()
    .min(1)
    .openapi({ description: 'Seconds to wait before retrying.', example: 1 }),
});

type DocumentOptions = { version: string; serverUrl?: string };

type Parameter = { example?: unknown; schema?: { example?: unknown; examples?: unknown[] } };
type Operations = Record<string, Record<string, { parameters?: Parameter[] }>>;

/**
 * Moves each parameter's `example` to its schema's `examples` (JSON Schema, OpenAPI 3.1). Swagger
 * UI fills "Try it out" with a parameter's `example` (its own, its schema's, or the first of its
 * `examples` map) and sends it: /docs would then call a workspace that does not exist (404) or
 * filter a list by an example email without saying so. An example stays documented; the request
 * is sent with only what the reader types.
 */
function parameterExamplesAsExamples(document: object): void {
  // Every path item here is operations only: the generator writes no path-level fields.
  for (const operations of Object.values((document as { paths?: Operations }).paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        const example = parameter.example ?? parameter.schema?.example;
        if (example === undefined) continue;
        delete parameter.example;
        parameter.schema = { ...parameter.schema, examples: parameter.schema?.examples ?? [example] };
        delete parameter.schema.example;
      }
    }
  }
}

let cached: { key: string; document: object } | undefined;

export function openApiDocument(options: DocumentOptions): object {
  const key = `${options.version}|${options.serverUrl ?? ''}|${registry.definitions.length}`;
  if (cached?.key === key) return cached.document;
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Switchboard API',
      version: options.version,
      description:
        'Multi-channel customer messaging and campaigns: contacts, events, segments, lead scores, ' +
        'campaigns and signed webhooks. Errors are RFC 9457 problem+json. Timestamps are ISO 8601 UTC ' +
        'with milliseconds.',
    },
    servers: options.serverUrl ? [{ url: options.serverUrl }] : undefined,
  });
  parameterExamplesAsExamples(document);
  cached = { key, document };
  return document;
}
