// Cookie sessions in PostgreSQL (express-session + connect-pg-simple, table `sessions`).
// The cookie is HttpOnly, SameSite=Lax and Secure in production. Idle and absolute lifetimes are
// enforced here rather than by rolling the cookie, so an active session costs at most one write a
// minute instead of one per request.
//
// express-session writes sessions (sign-in, sign-out, pages). API requests that only need to know
// who is signed in read the session with `readSignedIn` instead: from the process's cache
// (sessionCache.ts, kept right by NOTIFY), else one indexed query on the query pool that also
// brings the membership the route asks about, with the same lifetime rules. A session signed out or
// narrowed is refused by the very next request in the process that did it, and in another process
// as soon as the NOTIFY arrives (milliseconds; decision 0015).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import connectPgSimple from 'connect-pg-simple';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import session from 'express-session';
import pg from 'pg';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { type Db, sql } from '../db/pool.ts';
import type { Logger } from '../log.ts';
import { SESSION_COOKIE } from './openapi.ts';
import { forgetCachedSession, sessionCacheOf } from './sessionCache.ts';

declare module 'express-session' {
  interface SessionData {
    userId: string;
    createdAt: number;
    lastSeenAt: number;
  }
}

/** In production the secret must be configured; in development one is generated and kept. */
export function sessionSecret(config: Config): string {
  if (config.SESSION_SECRET) return config.SESSION_SECRET;
  const file = path.join(config.DATA_DIR, 'session-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.DATA_DIR, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

export function createSessionMiddleware(config: Config, databaseUrl: string, log: Logger) {
  const PgStore = connectPgSimple(session);
  // Every signed-in request reads its session here first: half the query pool's size keeps the store
  // from being the bottleneck without doubling the connections a web process holds.
  const max = Math.max(2, Math.ceil(config.DATABASE_POOL_SIZE / 2));
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    // Bounded like the query pool (config.ts): a stalled database fails the request with 503.
    connectionTimeoutMillis: config.DATABASE_CONNECT_TIMEOUT_MS,
    statement_timeout: config.DATABASE_STATEMENT_TIMEOUT_MS,
    // Client-side too, for a server that has stopped answering altogether (pg.Pool destroys the
    // client of a query that failed so, rather than reusing it).
    query_timeout: config.DATABASE_QUERY_TIMEOUT_MS,
  });
  // An idle client whose server went away (a restart, a failover) emits 'error' on the pool, which
  // would crash the process unheard; the pool drops that client and connects anew when next asked.
  pool.on('error', (error) => log.warn({ err: error }, 'session store: idle connection lost'));
  const store = new PgStore({
    pool,
    tableName: 'sessions',
    disableTouch: true,
    pruneSessionInterval: 15 * 60,
    errorLog: () => {},
  });
  const secret = sessionSecret(config);
  const middleware = session({
    name: SESSION_COOKIE,
    secret,
    store,
    resave: false,
    saveUninitialized: false,
    proxy: config.trustProxy,
    cookie: {
      httpOnly: true,
      sameSite: 'lax',
      secure: config.NODE_ENV === 'production',
      maxAge: config.SESSION_ABSOLUTE_TIMEOUT_MS,
    },
  });
  return {
    middleware,
    /** The session id of a request's cookie, if the cookie is ours (see sessionIdOf). */
    idOf: (cookieHeader: string | undefined) => sessionIdOf(cookieHeader, secret),
    close: async () => {
      store.close();
      await pool.end();
    },
  };
}

/** Seen more than a minute ago: lastSeenAt is written again (at most one write a minute). */
const LAST_SEEN_REFRESH_MS = 60_000;

type Lifetimes = Pick<Config, 'SESSION_IDLE_TIMEOUT_MS' | 'SESSION_ABSOLUTE_TIMEOUT_MS'>;

function outlived(config: Lifetimes, times: { createdAt?: number; lastSeenAt?: number }, now: number) {
  return (
    now - (times.lastSeenAt ?? 0) > config.SESSION_IDLE_TIMEOUT_MS ||
    now - (times.createdAt ?? 0) > config.SESSION_ABSOLUTE_TIMEOUT_MS
  );
}

/** Ends sessions past their idle or absolute lifetime; refreshes lastSeenAt once a minute. */
export function enforceSessionLifetime(config: Config): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const data = req.session;
    if (!data?.userId) return next();
    const now = Date.now();
    if (outlived(config, data, now)) {
      data.destroy(() => next());
      return;
    }
    if (now - (data.lastSeenAt ?? 0) > LAST_SEEN_REFRESH_MS) data.lastSeenAt = now;
    next();
  };
}

/**
 * The store's id from the session cookie, as express-session signs it (`s:<sid>.<HMAC-SHA256 of sid,
 * base64 without padding>`, URI-encoded), or null when there is none or the signature is not ours.
 */
export function sessionIdOf(cookieHeader: string | undefined, secret: string): string | null {
  const value = cookieValue(cookieHeader, SESSION_COOKIE);
  if (!value?.startsWith('s:')) return null;
  const signed = value.slice(2);
  const dot = signed.lastIndexOf('.');
  if (dot <= 0) return null;
  const sid = signed.slice(0, dot);
  const expected = Buffer.from(createHmac('sha256', secret).update(sid).digest('base64').replace(/=+$/, ''));
  const presented = Buffer.from(signed.slice(dot + 1));
  return expected.length === presented.length && timingSafeEqual(expected, presented) ? sid : null;
}

/** The first cookie of that name, URI-decoded as express-session reads it; null when malformed. */
function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const equals = part.indexOf('=');
    if (equals < 0 || part.slice(0, equals).trim() !== name) continue;
    let value = part.slice(equals + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      return decodeURIComponent(value);
    } catch {
      return null;
    }
  }
  return null;
}

const SignedInRow = z.object({
  user_id: z.string(),
  name: z.string(),
  email: z.string(),
  user_created_at: z.string(),
  created_at: z.number().nullable(),
  last_seen_at: z.number().nullable(),
  expires_at: z.number(),
  role: z.enum(['ADMIN', 'MEMBER']).nullable(),
});

/** The user's row comes along (GET /api/auth/session answers with it); a deleted user has none. */
export type SignedIn = {
  userId: string;
  role: 'ADMIN' | 'MEMBER' | null;
  user?: { id: string; name: string; email: string; created_at: string };
};

/**
 * Who the session `sid` signs in, and their role in `workspaceId` (null: not a member, or no
 * workspace asked): from this process's cache (sessionCache.ts) when it holds the session and that
 * role, else one query on the session's primary key and the membership's. A session past its idle
 * or absolute lifetime is ended here, as enforceSessionLifetime ends it for pages.
 */
export async function readSignedIn(
  db: Db,
  config: Lifetimes,
  sid: string,
  workspaceId: string | null,
): Promise<SignedIn | null> {
  const cache = sessionCacheOf(db);
  const now = Date.now();
  const cached = cache?.find(sid, now);
  const cachedRole = workspaceId === null ? null : cached?.roles.get(workspaceId);
  // Outlived by the cached times: the database decides (a page may have refreshed lastSeenAt).
  if (cached && cachedRole !== undefined && !outlived(config, cached, now)) {
    if (now - (cached.lastSeenAt ?? 0) > LAST_SEEN_REFRESH_MS) {
      await writeLastSeen(db, sid, now);
      cached.lastSeenAt = now;
    }
    return { userId: cached.user.id, role: cachedRole, user: cached.user };
  }
  const generation = cache?.generation() ?? 0;
  const row = await readSignedInRow(db, sid, workspaceId);
  if (!row) return null;
  const times = { createdAt: row.created_at ?? undefined, lastSeenAt: row.last_seen_at ?? undefined };
  if (outlived(config, times, now)) {
    await db.query(sql.typeAlias('void')`delete from sessions where sid = ${sid}`);
    cache?.forgetSession(sid);
    return null;
  }
  if (now - (times.lastSeenAt ?? 0) > LAST_SEEN_REFRESH_MS) {
    await writeLastSeen(db, sid, now);
    times.lastSeenAt = now;
  }
  const user = { id: row.user_id, name: row.name, email: row.email, created_at: row.user_created_at };
  const role =
    workspaceId !== null && row.role ? ([workspaceId, row.role] as [string, 'ADMIN' | 'MEMBER']) : null;
  cache?.store(sid, generation, { user, ...times, expiresAt: row.expires_at }, role);
  return { userId: row.user_id, role: row.role, user };
}

function readSignedInRow(db: Db, sid: string, workspaceId: string | null) {
  // Named (parsed and planned once per connection, see src/db/pool.ts): every API request a person
  // makes that misses the cache runs it.
  return db.maybeOne(sql.prepared('sessions.signed_in', SignedInRow)`
    select u.id as user_id, u.name, u.email, u.created_at as user_created_at,
           (s.sess->>'createdAt')::float8 as created_at, (s.sess->>'lastSeenAt')::float8 as last_seen_at,
           extract(epoch from s.expire::timestamptz)::float8 * 1000 as expires_at, m.role
    from sessions s
    join users u on u.id = s.sess->>'userId'
    left join memberships m on m.workspace_id = ${workspaceId ?? ''} and m.user_id = u.id
    where s.sid = ${sid} and s.expire >= now()
  `);
}

async function writeLastSeen(db: Db, sid: string, now: number): Promise<void> {
  await db.query(sql.typeAlias('void')`
    update sessions set sess = jsonb_set(sess::jsonb, '{lastSeenAt}', to_jsonb(${now}::bigint))::json
    where sid = ${sid}
  `);
}

/** Starts a fresh session for the user (a new id, so a planted session id cannot be reused). */
export function signInSession(req: Request, userId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    req.session.regenerate((error) => {
      if (error) return reject(error);
      const now = Date.now();
      req.session.userId = userId;
      req.session.createdAt = now;
      req.session.lastSeenAt = now;
      req.session.save((saveError) => (saveError ? reject(saveError) : resolve()));
    });
  });
}

export function signOutSession(req: Request): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!req.session) return resolve();
    const sid = req.sessionID;
    req.session.destroy((error) => {
      // Forgotten here before the answer; other processes hear of the deleted row (sql/0059).
      forgetCachedSession(sid);
      return error ? reject(error) : resolve();
    });
  });
}
