// Define each route once: the same object registers the operation in the OpenAPI document and
// mounts its validating Express handler. Handlers receive parsed input and an authenticated
// principal, and return `{ status, body }`; they never touch `res` except for special cases.
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { actingAs } from '../core/actor.ts';
import type { AppContext } from '../core/context.ts';
import { ValidationError } from '../core/errors.ts';
import { runAsWorkspace } from '../db/workspaceShare.ts';
import { type Access, describeAccess, requiredRole, security } from './access.ts';
import { ProblemSchema, RetryAfterHeader, registry } from './openapi.ts';
import { actingFor, authenticate, type Principal } from './principal.ts';
import { problemExample } from './problemExamples.ts';

export { type Access, access } from './access.ts';

import { withoutEmptyValues, zodIssuesToFieldErrors } from './validation.ts';

export type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export type HandlerContext<P, Q, B> = {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
  principal: Principal;
  /** Set on workspace routes: the workspace the principal was authorised for. */
  workspaceId: string;
  app: AppContext;
  req: Request;
  res: Response;
};

/** Response headers, for the document: `z.object({ 'Retry-After': … })` (optional keys may be absent). */
type HeaderSchema = z.ZodObject;

export type ResponseSpec = {
  description: string;
  schema?: Schema;
  contentType?: string;
  headers?: HeaderSchema;
  example?: unknown;
};

/** An error status: when it happens, and the headers it sends (e.g. Retry-After). */
export type ErrorSpec = string | { description: string; headers: HeaderSchema };

export type RouteSpec<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
> = {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI-style path: /api/workspaces/{workspaceId}/contacts */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * Request headers the handler reads, for the document only: the handler parses them itself, so
   * a bad value gets the handler's own 400 (with a `header.<name>` path).
   */
  requestHeaders?: HeaderSchema;
  /** When false, an absent body is parsed as {}. */
  bodyRequired?: boolean;
  responses: Record<number, ResponseSpec>;
  /** Further error statuses this route can answer with, and when. */
  errors?: Record<number, ErrorSpec>;
  handler: (context: HandlerContext<P, Q, B>) => Promise<Reply>;
};

export type RouteDefinition = {
  method: RouteSpec<Schema, Schema, Schema>['method'];
  path: string;
  expressPath: string;
  run: (app: AppContext, req: Request, res: Response) => Promise<void>;
  /** Answers the CORS preflight (OPTIONS) of a route browsers call from other origins. */
  preflight?: (app: AppContext, req: Request, res: Response) => Promise<void>;
};

function parseWith<S extends Schema>(schema: S | undefined, value: unknown, location: string) {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(zodIssuesToFieldErrors(result.error.issues, location));
  return result.data;
}

function checkResponse(spec: RouteSpec<never, never, never>, reply: Reply, app: AppContext) {
  // Outside production every response is held against its documented schema, so a handler that
  // drifts from the OpenAPI document fails the tests instead of surprising a client.
  if (app.config.NODE_ENV === 'production') return;
  const documented = spec.responses[reply.status];
  if (!documented)
    throw new Error(`${spec.operationId} answered ${reply.status}, which it does not document`);
  checkHeaders(spec, reply, documented);
  if (!documented.schema) return;
  const result = documented.schema.safeParse(reply.body);
  if (!result.success) {
    throw new Error(
      `${spec.operationId} ${reply.status} body does not match its schema: ${result.error.message}`,
    );
  }
}

/** The reply sends exactly the headers its response documents (optional ones may be left out). */
function checkHeaders(spec: RouteSpec<never, never, never>, reply: Reply, documented: ResponseSpec) {
  const shape = documented.headers?.shape ?? {};
  const sent = new Set(Object.keys(reply.headers ?? {}).map((name) => name.toLowerCase()));
  const names = new Set(Object.keys(shape).map((name) => name.toLowerCase()));
  const undocumented = [...sent].filter((name) => !names.has(name));
  const missing = Object.entries(shape)
    .filter(([name, schema]) => !sent.has(name.toLowerCase()) && !schema.safeParse(undefined).success)
    .map(([name]) => name);
  if (undocumented.length > 0 || missing.length > 0) {
    throw new Error(
      `${spec.operationId} ${reply.status} headers differ from the document: ` +
        `undocumented [${undocumented.join(', ')}], missing [${missing.join(', ')}]`,
    );
  }
}

const DEFAULT_ERRORS: Record<number, ErrorSpec> = {
  400: 'The request is invalid (problem+json lists each field).',
  401: 'No credentials, or a bad, revoked or expired API key, or an expired session.',
  403: 'Authenticated, but the API key lacks the scope or the member lacks the role; or a cross-site request.',
  404: 'The workspace or resource does not exist or is not yours.',
  413: 'The request body is larger than 1 MB.',
  415: 'The request body is not application/json.',
  // Any operation can meet a database that is restarting, stalled or out of connections (problem.ts).
  503: {
    description:
      'The database did not answer in time (a restart, a stall, every connection busy); retry after Retry-After.',
    headers: RetryAfterHeader,
  },
};

/** Workspace routes: the workspace's share of the database stayed busy (db/workspaceShare.ts). */
const WORKSPACE_BUSY: ErrorSpec = {
  description:
    "The workspace's share of the database stayed busy with its other requests and jobs for " +
    'WORKSPACE_POOL_WAIT_MS: nothing was done; retry after Retry-After.',
  headers: RetryAfterHeader,
};

function documentedErrors(spec: RouteSpec<Schema | undefined, Schema | undefined, Schema | undefined>) {
  const statuses = new Set<number>([400]);
  const descriptions: Record<number, string> = {};
  // app.ts guards every POST/PATCH/PUT/DELETE under /api, whether or not the route reads a body:
  // a body must be JSON (415) of at most 1 MB (413), and a cookie-borne request may not come
  // cross-site (403; API keys and inbound webhooks are exempt).
  const changes = spec.method !== 'get';
  if (spec.access.kind !== 'public') statuses.add(401);
  if (spec.access.kind === 'workspace') {
    statuses.add(403);
    statuses.add(404);
    statuses.add(503);
  } else if (spec.access.kind === 'user') {
    statuses.add(403);
    descriptions[403] = changes
      ? 'An API key was presented (this route needs a signed-in session), or a cross-site request.'
      : 'An API key was presented: this route needs a signed-in session.';
  } else if (changes && !/^\/api\/(webhooks\/inbound|feedback)\//.test(spec.path)) {
    statuses.add(403);
    descriptions[403] = 'A cross-site request.';
  }
  if (spec.body || changes) {
    statuses.add(413);
    statuses.add(415);
  }
  if (!spec.responses[503]) statuses.add(503);
  const errors: Record<string, object> = {};
  const extra = spec.errors ?? {};
  for (const status of [...statuses, ...Object.keys(extra).map(Number)]) {
    const busy = status === 503 && spec.access.kind === 'workspace' ? WORKSPACE_BUSY : undefined;
    const entry = extra[status] ?? descriptions[status] ?? busy ?? DEFAULT_ERRORS[status];
    const given = typeof entry === 'string' ? { description: entry } : entry;
    errors[status] = responseObject({
      ...given,
      schema: ProblemSchema,
      contentType: 'application/problem+json',
      example: problemExample(status, given.description, exampleField(spec)),
    });
  }
  return errors;
}

/** A field the route reads (`body.name`), for its 400 example. */
function exampleField(spec: RouteSpec<Schema | undefined, Schema | undefined, Schema | undefined>) {
  const locations = [
    ['body', spec.body],
    ['query', spec.query],
    ['path', spec.params],
  ] as const;
  for (const [location, schema] of locations) {
    const name = Object.keys((schema as { shape?: object } | undefined)?.shape ?? {})[0];
    if (name) return `${location}.${name}`;
  }
  return 'body';
}

function responseObject(response: ResponseSpec): object {
  return {
    description: response.description,
    ...(response.headers ? { headers: response.headers } : {}),
    ...(response.schema
      ? {
          content: {
            [response.contentType ?? 'application/json']: {
              schema: response.schema,
              ...(response.example === undefined ? {} : { example: response.example }),
            },
          },
        }
      : {}),
  };
}

function register(spec: RouteSpec<Schema | undefined, Schema | undefined, Schema | undefined>) {
  const responses: Record<string, object> = {};
  for (const [status, response] of Object.entries(spec.responses))
    responses[status] = responseObject(response);
  registry.registerPath({
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: [spec.description, describeAccess(spec.access)].filter(Boolean).join('\n\n'),
    tags: spec.tags,
    security: security(spec.access),
    // Machine-readable form of the scope named in the description (clients and the access tests read it).
    ...(spec.access.kind === 'workspace' && spec.access.scope
      ? { 'x-required-scope': spec.access.scope }
      : {}),
    ...(spec.access.kind === 'workspace' ? { 'x-required-role': requiredRole(spec.access) } : {}),
    request: {
      params: spec.params as never,
      query: spec.query as never,
      headers: spec.requestHeaders,
      body: spec.body
        ? { required: spec.bodyRequired !== false, content: { 'application/json': { schema: spec.body } } }
        : undefined,
    },
    responses: { ...responses, ...documentedErrors(spec) },
  });
}

/**
 * The query string a route's own schema reads: without `key`, the API key that authentication has
 * already taken (every route accepts it, so no route's schema needs to list it).
 */
function routeQuery(req: Request): Record<string, unknown> {
  const { key: _authentication, ...rest } = (req.query ?? {}) as Record<string, unknown>;
  return rest;
}

export function defineRoute<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
>(spec: RouteSpec<P, Q, B>): RouteDefinition {
  register(spec as never);
  const run = async (app: AppContext, req: Request, res: Response) => {
    const principalAndWorkspace = await authenticate(app, req, spec.access);
    const params = parseWith(spec.params, req.params, 'path') as Out<P>;
    const query = parseWith(spec.query, withoutEmptyValues(routeQuery(req)), 'query') as Out<Q>;
    const rawBody = req.body === undefined && spec.bodyRequired === false ? {} : req.body;
    const body = parseWith(spec.body, rawBody, 'body') as Out<B>;
    const acting = actingFor(principalAndWorkspace.principal, req);
    const handle = () =>
      actingAs(acting, () => spec.handler({ params, query, body, ...principalAndWorkspace, app, req, res }));
    // A workspace's requests draw on its share of the pool (db/workspaceShare.ts).
    const reply =
      spec.access.kind === 'workspace'
        ? await runAsWorkspace(principalAndWorkspace.workspaceId, handle, app.config.WORKSPACE_POOL_WAIT_MS)
        : await handle();
    checkResponse(spec as never, reply, app);
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    if (reply.body === undefined) res.status(reply.status).end();
    else res.status(reply.status).json(reply.body);
  };
  return { method: spec.method, path: spec.path, expressPath: spec.path.replace(/\{(\w+)\}/g, ':$1'), run };
}
