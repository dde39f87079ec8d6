// How a browser reaches the public endpoints: a publishable key (`X-Publishable-Key: pk_…`, or
// `?key=pk_…` where a header cannot be set), from an origin the key lists. CORS answers only those
// origins; a request from any other origin is refused and changes nothing. Requests are limited
// per key and per client address. A secret key (`sb_…`, or any Authorization header) is refused
// on this path, without CORS headers, so a page that leaks one learns at once that it must not.
//
// Order: the key and its origin, then the address limit and the key's limit. CORS headers are set
// as soon as the origin is known to be allowed, so the page can read every later answer (429, 400,
// 403 for an event type). An unknown key costs one indexed lookup and is not counted: the keys
// are public anyway, and 192 random bits are not worth guessing.
import type { Request, Response } from 'express';
import type { AppContext } from '../core/context.ts';
import { ForbiddenError, UnauthorizedError } from '../core/errors.ts';
import { isWellFormedPublishableKey, looksLikeSecretKey } from './keyFormat.ts';
import { anyLiveKeyAllowsOrigin, findLivePublishableKey, touchPublishableKeyLastUsed } from './queries.ts';
import { limitRequests } from './rateLimit.ts';

export const PUBLISHABLE_KEY_HEADER = 'X-Publishable-Key';
const ALLOWED_HEADERS = `Content-Type, ${PUBLISHABLE_KEY_HEADER}, X-Request-Id`;
const EXPOSED_HEADERS = 'Retry-After, X-Request-Id';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** Who called a public endpoint: the key's workspace and what the key allows. */
export type PublicCaller = {
  workspaceId: string;
  keyId: string;
  allowedEventTypes: readonly string[];
  /** The page's origin, when a browser sent one (it was on the key's list). */
  origin: string | null;
};

function presentedPublishableKey(req: Request): string | null {
  const header = req.get(PUBLISHABLE_KEY_HEADER);
  const query = req.query?.key;
  const presented = header ?? (typeof query === 'string' && query !== '' ? query : null);
  if (req.headers.authorization !== undefined || (presented !== null && looksLikeSecretKey(presented))) {
    throw new ForbiddenError(
      'Secret API keys (sb_…) and Authorization headers are never accepted on public endpoints: ' +
        'a key sent from a browser is public. Revoke it, and use a publishable key (pk_…) in ' +
        `the ${PUBLISHABLE_KEY_HEADER} header.`,
      'secret-key-refused',
    );
  }
  return presented;
}

function allowOrigin(res: Response, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  res.vary('Origin');
}

const touched = new Map<string, number>();

function touchLater(app: AppContext, key: { workspace_id: string; id: string }): void {
  const now = Date.now();
  if ((touched.get(key.id) ?? 0) > now - 60_000) return;
  touched.set(key.id, now);
  touchPublishableKeyLastUsed(app.db, key.workspace_id, key.id).catch((error) =>
    app.log.warn({ err: error, keyId: key.id }, 'publishable key last_used_at update failed'),
  );
}

/**
 * Authenticates a public request by its publishable key, answers CORS for the key's origins and
 * counts it against the limits. `workspaceId`, when given, is the workspace the resource belongs
 * to (a form): a key of another workspace is refused like an unknown one.
 */
export async function authenticatePublicRequest(
  app: AppContext,
  req: Request,
  res: Response,
  options: { workspaceId?: string } = {},
): Promise<PublicCaller> {
  const presented = presentedPublishableKey(req);
  const settings = app.config;
  const row =
    presented && isWellFormedPublishableKey(presented)
      ? await findLivePublishableKey(app.db, presented)
      : null;
  if (!row || (options.workspaceId !== undefined && row.workspace_id !== options.workspaceId)) {
    throw new UnauthorizedError(
      `Send a live publishable key of this workspace in the ${PUBLISHABLE_KEY_HEADER} header (pk_…).`,
    );
  }
  const origin = req.get('origin') ?? null;
  if (origin !== null) {
    if (!row.allowed_origins.includes(origin)) {
      throw new ForbiddenError(
        `The origin ${origin} is not on this publishable key's list of allowed origins.`,
        'origin-not-allowed',
      );
    }
    allowOrigin(res, origin);
  }
  await limitRequests(
    app.db,
    settings,
    `ip:${req.ip}`,
    settings.PUBLIC_RATE_LIMIT_PER_IP,
    'from your address',
  );
  await limitRequests(
    app.db,
    settings,
    `key:${row.id}`,
    settings.PUBLIC_RATE_LIMIT_PER_KEY,
    'for this publishable key',
  );
  touchLater(app, row);
  return { workspaceId: row.workspace_id, keyId: row.id, allowedEventTypes: row.allowed_event_types, origin };
}

/**
 * Answers a CORS preflight (OPTIONS) for a public endpoint that takes `methods`. A preflight
 * carries no headers' values, so the key is known only from `?key=pk_…`; without it the origin must
 * be on some live key's list (the request itself is then checked against its own key). Asking to
 * send Authorization is refused: secret keys have no business on this path.
 */
export async function answerPreflight(app: AppContext, req: Request, res: Response, methods: string[]) {
  const origin = req.get('origin');
  const requested = (req.get('access-control-request-headers') ?? '').toLowerCase();
  const query = req.query?.key;
  const allowed =
    origin !== undefined &&
    !requested.split(',').some((name) => name.trim() === 'authorization') &&
    (typeof query === 'string' && isWellFormedPublishableKey(query)
      ? (await findLivePublishableKey(app.db, query))?.allowed_origins.includes(origin) === true
      : await anyLiveKeyAllowsOrigin(app.db, origin));
  res.vary('Origin');
  if (!allowed || origin === undefined) {
    res.status(403).type('text/plain').send('This origin may not call this endpoint.');
    return;
  }
  allowOrigin(res, origin);
  res.setHeader('Access-Control-Allow-Methods', [...methods, 'OPTIONS'].join(', '));
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
  res.status(204).end();
}
