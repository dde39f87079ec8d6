// A public endpoint for browsers, defined once like every route (http/route.ts) and documented as
// such: publishable key first (publicAccess.ts), then the route's own validation and handler,
// which receives the caller. The definition carries its CORS preflight for the web app to mount.
import { z } from 'zod';
import { RetryAfterHeader, registry } from '../http/openapi.ts';
import {
  access,
  defineRoute,
  type ErrorSpec,
  type HandlerContext,
  type Reply,
  type ResponseSpec,
  type RouteDefinition,
  type RouteSpec,
} from '../http/route.ts';
import {
  answerPreflight,
  authenticatePublicRequest,
  PUBLISHABLE_KEY_HEADER,
  type PublicCaller,
} from './publicAccess.ts';

type Schema = z.ZodType;

registry.registerComponent('securitySchemes', 'publishableKey', {
  type: 'apiKey',
  in: 'header',
  name: PUBLISHABLE_KEY_HEADER,
  description:
    "A publishable key (`pk_…`), safe in page source: public endpoints only, from the key's origins only.",
});

const ACCESS = access.publicWith(
  'publishableKey',
  `Requires a publishable key (\`${PUBLISHABLE_KEY_HEADER}: pk_…\` or \`?key=pk_…\`); from a browser, the page's ` +
    "origin must be on the key's list (CORS answers those origins only). Secret keys are refused.",
);

export const PublishableKeyHeader = z.object({
  [PUBLISHABLE_KEY_HEADER]: z.string().optional().openapi({
    description: 'A publishable key (pk_…) of the workspace; or pass it as the `key` query parameter.',
    example: 'pk_4QHn0lJx2m2s1sFZ1cWb3x9y8z7A6B5C',
  }),
});

const CorsHeaders = z.object({
  'Access-Control-Allow-Origin': z.string().optional().openapi({
    description: "The calling page's origin, when it is on the key's list of allowed origins.",
  }),
});

export const PUBLIC_ERRORS: Record<number, ErrorSpec> = {
  401: 'No publishable key, or one that is unknown, revoked or of another workspace.',
  403:
    "The page's origin is not on the key's list; a secret key (sb_…) or an Authorization header " +
    'was sent; an event type the key does not allow; or an identity token that does not match.',
  429: {
    description: 'Too many requests for this key or from this address; retry after Retry-After.',
    headers: RetryAfterHeader,
  },
};

export type PublicHandlerContext<P, Q, B> = HandlerContext<P, Q, B> & { caller: PublicCaller };

export type PublicRouteSpec<P, Q, B> = Omit<
  RouteSpec<P & Schema, Q & Schema, B & Schema>,
  'access' | 'handler'
> & {
  handler: (context: PublicHandlerContext<P, Q, B>) => Promise<Reply>;
};

function withCorsHeaders(responses: Record<number, ResponseSpec>): Record<number, ResponseSpec> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      { ...response, headers: response.headers ? response.headers.extend(CorsHeaders.shape) : CorsHeaders },
    ]),
  );
}

export function publicRoute<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
>(spec: PublicRouteSpec<P, Q, B>): RouteDefinition {
  const route = defineRoute<P, Q, B>({
    ...(spec as unknown as RouteSpec<P, Q, B>),
    access: ACCESS,
    requestHeaders: spec.requestHeaders
      ? spec.requestHeaders.extend(PublishableKeyHeader.shape)
      : PublishableKeyHeader,
    responses: withCorsHeaders(spec.responses),
    errors: { ...PUBLIC_ERRORS, ...spec.errors },
    handler: (context) =>
      spec.handler({ ...context, caller: context.res.locals.publicCaller as PublicCaller } as never),
  });
  return {
    ...route,
    run: async (app, req, res) => {
      res.locals.publicCaller = await authenticatePublicRequest(app, req, res);
      await route.run(app, req, res);
    },
    preflight: (app, req, res) => answerPreflight(app, req, res, [spec.method.toUpperCase()]),
  };
}
