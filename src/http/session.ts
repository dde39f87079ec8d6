// Cookie sessions in PostgreSQL (express-session + connect-pg-simple, table `sessions`).
// The cookie is HttpOnly, SameSite=Lax and Secure in production. Idle and absolute lifetimes are
// enforced here rather than by rolling the cookie, so an active session costs at most one write a
// minute instead of one per request.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import connectPgSimple from 'connect-pg-simple';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import session from 'express-session';
import pg from 'pg';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { SESSION_COOKIE } from './openapi.ts';

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
  const middleware = session({
    name: SESSION_COOKIE,
    secret: sessionSecret(config),
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
    close: async () => {
      store.close();
      await pool.end();
    },
  };
}

/** Ends sessions past their idle or absolute lifetime; refreshes lastSeenAt once a minute. */
export function enforceSessionLifetime(config: Config): RequestHandler {
  const idleMs = config.SESSION_IDLE_TIMEOUT_MS;
  const absoluteMs = config.SESSION_ABSOLUTE_TIMEOUT_MS;
  return (req: Request, _res: Response, next: NextFunction) => {
    const data = req.session;
    if (!data?.userId) return next();
    const now = Date.now();
    if (now - (data.lastSeenAt ?? 0) > idleMs || now - (data.createdAt ?? 0) > absoluteMs) {
      data.destroy(() => next());
      return;
    }
    if (now - (data.lastSeenAt ?? 0) > 60_000) data.lastSeenAt = now;
    next();
  };
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
    req.session.destroy((error) => (error ? reject(error) : resolve()));
  });
}
