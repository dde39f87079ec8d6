// The Express application around the routes and pages it is given: request ids and logs,
// content-type and cross-site checks, JSON parsing, sessions, and problem+json for everything else.
// The composition layer (src/app/web.ts) hands it every feature's routes and pages.
import { randomUUID } from 'node:crypto';
import express, {
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { AppContext } from '../core/context.ts';
import {
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../core/errors.ts';
import { redactUrl } from '../log.ts';
import {
  findJsonLimitBreach,
  JSON_BODY_LIMIT_BYTES,
  type JsonLimits,
  jsonLimitsOf,
  refuseJsonLimitBreach,
} from './jsonLimits.ts';
import { MALFORMED_JSON, OversizedBody } from './malformedJson.ts';
import { presentsApiKey } from './principal.ts';
import { problemMiddleware, sendProblem } from './problem.ts';
import type { RouteDefinition } from './route.ts';
import { createSessionMiddleware, enforceSessionLifetime } from './session.ts';
import { startSessionCache } from './sessionCache.ts';
import { findUnstorableText, NUL_MESSAGE } from './validation.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const BODY_LIMIT = JSON_BODY_LIMIT_BYTES;

function requestIdAndLog(app: AppContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    // Express 5's req.query is a getter that parses the query string on every read, and a request
    // reads it several times (session skip, cross-site guard, authentication, validation).
    Object.defineProperty(req, 'query', {
      value: req.query,
      writable: true,
      configurable: true,
      enumerable: true,
    });
    const incoming = req.get('x-request-id');
    req.id = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      app.log.info(
        { reqId: req.id, method: req.method, url: redactUrl(req.originalUrl), status: res.statusCode, ms },
        'request',
      );
    });
    next();
  };
}

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return (length !== undefined && length !== '0') || req.get('transfer-encoding') !== undefined;
}

/**
 * Inbound webhooks and provider feedback: server-to-server, raw bodies (req.path is relative to
 * the /api mount). Case-insensitive because
 * Express routing is: /api/Webhooks/inbound/… reaches the same route, and a request the route
 * receives must have had its raw body captured for the signature check.
 */
const INBOUND_WEBHOOK_PATH = /^\/(webhooks\/inbound|feedback)\//i;

function isInboundWebhook(req: Request): boolean {
  return INBOUND_WEBHOOK_PATH.test(req.path);
}

/** Provider feedback takes any content type: SNS posts its JSON as text/plain. */
const isProviderFeedback = (req: Request) => /^\/feedback\//i.test(req.path);

/**
 * Endpoints for browsers on customers' sites (/api/public/…): they authenticate by publishable
 * key and answer CORS for its origins alone; no cookie is read, so they need neither the session
 * nor the cross-site guard. The full path, lower-cased, as skipsSession reads it.
 */
const PUBLIC_API_PATH = /^\/api\/public\//;

/**
 * Sessions only for requests that can use one. A request presenting an API key authenticates
 * with it alone (principal.ts), so loading its session would be a store query for nothing.
 * An empty `?key=` presents no key (the session decides). Pages and /api/auth keep sessions
 * whatever the request carries: pages read them, and signing in and out is what they are for.
 */
function skipsSession(req: Request): boolean {
  // The full path, whatever the middleware's mount point; lower-cased because routing ignores case.
  const path = `${req.baseUrl}${req.path}`.toLowerCase();
  if (PUBLIC_API_PATH.test(path)) return true;
  return presentsApiKey(req) && path.startsWith('/api/') && !path.startsWith('/api/auth/');
}

/**
 * API requests that only ask who is signed in (every /api route but signing in and out, password
 * changes and the like under /api/auth/, except reading the session) read it when they
 * authenticate, from the session cache or in one query with the membership (session.ts,
 * readSignedIn), without express-session's load and save around the request.
 */
function readsSessionWhenAuthenticating(req: Request): boolean {
  const path = `${req.baseUrl}${req.path}`.toLowerCase();
  if (path === '/api/auth/session') return req.method === 'GET' || req.method === 'HEAD';
  return path.startsWith('/api/') && !path.startsWith('/api/auth/');
}

function sessionsFor(sessions: ReturnType<typeof createSessionMiddleware>): RequestHandler {
  return (req, res, next) => {
    if (skipsSession(req)) return next();
    if (!readsSessionWhenAuthenticating(req)) return sessions.middleware(req, res, next);
    req.sessionCookieId = sessions.idOf(req.headers.cookie);
    next();
  };
}

function unlessSafeMethod(middleware: RequestHandler): RequestHandler {
  return (req, res, next) => (SAFE_METHODS.has(req.method) ? next() : middleware(req, res, next));
}

/** JSON only; and a browser's cross-site request may not change anything (CSRF). */
function requestGuards(app: AppContext) {
  const publicOrigin = app.config.PUBLIC_URL ? new URL(app.config.PUBLIC_URL).origin : null;
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE_METHODS.has(req.method)) return next();
    if (hasBody(req) && !req.is(['application/json', 'application/*+json']) && !isProviderFeedback(req)) {
      return sendProblem(res, new UnsupportedMediaTypeError(), req.id);
    }
    // Server-to-server callers (API keys, inbound webhooks) are not browsers riding a cookie. A key
    // exempts only a request that does not load the session: /api/auth/* uses the session whatever
    // the query string holds, so `?key=x` there must not skip the check.
    if (skipsSession(req) || isInboundWebhook(req)) return next();
    const fetchSite = req.get('sec-fetch-site');
    const origin = req.get('origin');
    const ownOrigin = publicOrigin ?? `${req.protocol}://${req.get('host')}`;
    if (
      (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') ||
      (origin && origin !== ownOrigin)
    ) {
      return sendProblem(
        res,
        new ForbiddenError('Cross-site requests may not change anything.', 'cross-site-request'),
        req.id,
      );
    }
    next();
  };
}

/** Text PostgreSQL cannot store (NUL, lone surrogates): a 400 naming where it is, never a 500. */
function refuseUnstorableText(req: Request, res: Response, next: NextFunction) {
  const [pathPart, queryPart = ''] = req.originalUrl.split('?');
  const found = /%00/i.test(pathPart)
    ? { path: 'path', message: NUL_MESSAGE }
    : /%00/i.test(queryPart)
      ? { path: 'query', message: NUL_MESSAGE }
      : findUnstorableText(req.body, 'body');
  if (!found) return next();
  sendProblem(res, new ValidationError([found]), req.id);
}

/** Static path segments before parameters, so /webhooks/deliveries wins over /webhooks/{id}. */
function bySpecificity(a: RouteDefinition, b: RouteDefinition): number {
  const key = (route: RouteDefinition) =>
    route.path
      .split('/')
      .map((segment) => (segment.startsWith('{') ? '1' : '0'))
      .join('');
  return key(a).localeCompare(key(b));
}

function pathPattern(route: RouteDefinition): RegExp {
  return new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}/?$`);
}

/**
 * A static segment such as /contacts/merge also fits /contacts/{contactId}; a method only the
 * parameter route has (GET …/contacts/merge) would reach it and answer "contact not found".
 * The static path is its own resource: those methods get 405 with its Allow instead.
 */
function guardStaticPaths(app: Express, routes: RouteDefinition[]) {
  for (const path of new Set(routes.map((route) => route.path))) {
    const own = routes.filter((route) => route.path === path).map((route) => route.method);
    const shadowing = routes.filter(
      (route) => route.path !== path && !own.includes(route.method) && pathPattern(route).test(path),
    );
    const allowed = [...new Set(own)].map((method) => method.toUpperCase());
    const expressPath = routes.find((route) => route.path === path)!.expressPath;
    for (const method of new Set(shadowing.map((route) => route.method))) {
      app[method](expressPath, (req: Request, res: Response) =>
        sendProblem(res, new MethodNotAllowedError(req.method, allowed), req.id),
      );
    }
  }
}

function mountRoutes(app: Express, context: AppContext, routes: RouteDefinition[]) {
  guardStaticPaths(app, routes);
  for (const route of [...routes].sort(bySpecificity)) {
    app[route.method](route.expressPath, (req, res) => route.run(context, req, res));
    const { preflight } = route;
    if (preflight) app.options(route.expressPath, (req, res) => preflight(context, req, res));
  }
  const patterns = routes.map((route) => ({ route, pattern: pathPattern(route) }));
  // Unknown /api paths: 405 with Allow when the path exists with other methods, else 404.
  app.use('/api', (req: Request, res: Response) => {
    const fullPath = req.originalUrl.split('?')[0];
    const allowed = patterns.filter(({ pattern }) => pattern.test(fullPath)).map(({ route }) => route.method);
    if (allowed.length > 0) {
      const methods = [...new Set(allowed)].map((method) => method.toUpperCase());
      return sendProblem(res, new MethodNotAllowedError(req.method, methods), req.id);
    }
    sendProblem(res, new NotFoundError('Route', `No route ${req.method} ${fullPath}.`), req.id);
  });
}

/**
 * Inbound webhook bodies are read raw and parsed here, not by express.json: a malformed body sent
 * to a known endpoint is still a receipt to record (as a failed delivery), so it must reach the
 * route instead of ending in the parser's 400. body-parser skips requests already read. A body
 * beyond the JSON limits is no receipt: it is refused before parsing, as on every other route.
 * A provider's form-encoded body (application/x-www-form-urlencoded, under /feedback/) is read as
 * a form, its raw bytes kept.
 */
const inboundWebhookBody = (limits: JsonLimits): RequestHandler[] => [
  (req, res, next) => (isInboundWebhook(req) ? rawInbound(req, res, oversizedAsBody(req, next)) : next()),
  (req, _res, next) => {
    if (!isInboundWebhook(req) || !Buffer.isBuffer(req.body)) return next();
    // Some providers post forms (Twilio, signed over its parameters): kept raw, read as a form.
    // Inbound webhook endpoints (/webhooks/inbound) take JSON only, as before.
    if (isProviderFeedback(req) && req.is('application/x-www-form-urlencoded')) {
      req.rawBody = req.body;
      req.body = Object.fromEntries(new URLSearchParams(req.rawBody.toString('utf8')));
      return next();
    }
    const breach = findJsonLimitBreach(req.body, limits);
    if (breach) return next(new ValidationError([breach]));
    req.rawBody = req.body;
    try {
      req.body = req.rawBody.length === 0 ? undefined : JSON.parse(req.rawBody.toString('utf8'));
    } catch {
      req.body = MALFORMED_JSON;
    }
    next();
  },
];

const rawInbound = express.raw({ type: () => true, limit: BODY_LIMIT });

/** A body over the limit reaches the inbound route as an OversizedBody (it answers the 413). */
function oversizedAsBody(req: Request, next: NextFunction): NextFunction {
  return (error?: unknown) => {
    const failure = error as { type?: string; length?: number; received?: number } | undefined;
    if (failure?.type !== 'entity.too.large') return next(error as Error);
    const declared = Number(req.get('content-length'));
    req.body = new OversizedBody(failure.length ?? (Number.isFinite(declared) ? declared : null));
    next();
  };
}

export type AppParts = {
  routes: RouteDefinition[];
  /** Mounts the pages for people (after the API, before the final 404). */
  installPages: (app: Express, context: AppContext) => void;
};

export function createHttpApp(context: AppContext, parts: AppParts) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', context.config.trustProxy ? 1 : false);
  app.set('query parser', 'simple');
  app.use(requestIdAndLog(context));

  const sessions = createSessionMiddleware(context.config, context.databaseUrl, context.log);
  const stopSessionCache = startSessionCache(context.db, context.databaseUrl, context.log);
  app.use(sessionsFor(sessions), enforceSessionLifetime(context.config));

  const limits = jsonLimitsOf(context.config);
  app.use(
    '/api',
    requestGuards(context),
    inboundWebhookBody(limits),
    // A GET/HEAD/OPTIONS body means nothing: it is left unread, so it can neither fail to parse nor
    // be too large (the document lists no 413 for a body on those).
    unlessSafeMethod(
      express.json({
        limit: BODY_LIMIT,
        type: ['application/json', 'application/*+json'],
        verify: refuseJsonLimitBreach(limits),
      }),
    ),
    refuseUnstorableText,
  );
  mountRoutes(app, context, parts.routes);

  parts.installPages(app, context);
  app.use((req: Request, res: Response) => {
    sendProblem(res, new NotFoundError('Page', `Nothing at ${req.method} ${req.path}.`), req.id);
  });
  app.use(problemMiddleware(context.log));
  const close = async () => {
    await stopSessionCache();
    await sessions.close();
  };
  return { app, close };
}
