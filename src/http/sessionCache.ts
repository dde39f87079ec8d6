// Who a session signs in, cached per web process by session id, with the roles it was seen to
// hold. Reading the session row, the user and the membership was a query on every API request a
// person made, where an API key is served from memory (src/apiKeys/cache.ts): this gives
// sessions the same cost, under the key cache's discipline.
//
// Staying right: triggers (sql/0059) NOTIFY with the user's id on every change that can end or
// narrow a session (its row deleted: sign-out, prune, password change, idle end; the user's name
// or email changed or the user deleted; a membership deleted or its role changed). Each process
// LISTENs and forgets that user's entries (an empty payload: all of them); the process that makes
// the change forgets them at once, before it answers, and again once its transaction commits.
// While the listener is not connected nothing is cached. A lookup in flight when entries were
// forgotten does not store its answer. Entries live ENTRY_TTL_MS at most. Unknown session ids
// and absent memberships are never cached: a new session or membership works at once, and
// guessing cannot fill memory. The lifetime rules are checked on every hit (session.ts).
import { afterCommit } from '../db/afterCommit.ts';
import { type Listener, subscribe } from '../db/listener.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from '../log.ts';

export const SESSIONS_CHANNEL = 'switchboard_sessions';
const ENTRY_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

export type Role = 'ADMIN' | 'MEMBER';

export type CachedSession = {
  user: { id: string; name: string; email: string; created_at: string };
  createdAt: number | undefined;
  lastSeenAt: number | undefined;
  /** When the store's row expires (epoch ms): the cookie's own end. */
  expiresAt: number;
  /** Roles by workspace id, only those seen: a workspace not listed is asked of the database. */
  roles: Map<string, Role>;
};

type Entry = CachedSession & { cachedAt: number };

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private generationCount = 0;
  private listening = false;
  private readonly listener: Listener;

  constructor(databaseUrl: string, log: Logger) {
    this.listener = subscribe({
      name: 'session cache',
      databaseUrl,
      channels: [SESSIONS_CHANNEL],
      log,
      onNotify: (_channel, userId) => this.forget(userId || undefined),
      onConnect: () => {
        this.forget();
        this.listening = true;
      },
      onDisconnect: () => {
        this.listening = false;
        this.forget();
      },
    });
    live.add(this);
  }

  /** Marks the start of a lookup in the database; pass it to `store`. */
  generation(): number {
    return this.generationCount;
  }

  /** The live entry of `sid`, if cached less than ENTRY_TTL_MS ago and its row has not expired. */
  find(sid: string, now: number): CachedSession | undefined {
    const entry = this.entries.get(sid);
    if (!entry) return undefined;
    if (now - entry.cachedAt < ENTRY_TTL_MS && entry.expiresAt >= now) return entry;
    this.entries.delete(sid);
    return undefined;
  }

  /** Keeps what a lookup begun at `generation` read, unless entries were forgotten since. */
  store(sid: string, generation: number, session: Omit<CachedSession, 'roles'>, role: [string, Role] | null) {
    if (!this.listening || generation !== this.generationCount) return;
    const now = Date.now();
    const current = this.entries.get(sid);
    // A fresh entry gains the role (its age is kept: the TTL counts from the first read).
    const fresh = current && now - current.cachedAt < ENTRY_TTL_MS ? current : undefined;
    const roles = fresh?.roles ?? new Map<string, Role>();
    if (role) roles.set(role[0], role[1]);
    if (!current && this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(sid, { ...session, roles, cachedAt: fresh?.cachedAt ?? now });
  }

  /** Forgets one session (ended here). */
  forgetSession(sid: string): void {
    this.generationCount++;
    this.entries.delete(sid);
  }

  /** Forgets the user's sessions, or every session when no user is named. */
  forget(userId?: string): void {
    this.generationCount++;
    for (const [sid, entry] of this.entries) {
      if (userId === undefined || entry.user.id === userId) this.entries.delete(sid);
    }
  }

  async close(): Promise<void> {
    live.delete(this);
    await this.listener.close();
  }
}

/** Every cache of this process (a test process runs two web apps): a change here reaches all. */
const live = new Set<SessionCache>();
const byPool = new WeakMap<Db, SessionCache>();

/** Starts caching the sessions `db` (the web process's query pool) reads; the returned function stops it. */
export function startSessionCache(db: Db, databaseUrl: string, log: Logger): () => Promise<void> {
  const cache = new SessionCache(databaseUrl, log);
  byPool.set(db, cache);
  return async () => {
    if (byPool.get(db) === cache) byPool.delete(db);
    await cache.close();
  };
}

export function sessionCacheOf(db: Db): SessionCache | undefined {
  return byPool.get(db);
}

/**
 * Forgets what this process cached for the user (all users when none is named), now and again
 * after the current transaction commits: a request that read the old rows between the two cannot
 * leave them cached. Other processes hear it from the database (sql/0059).
 */
export function forgetCachedSessions(userId?: string): void {
  const forget = () => {
    for (const cache of live) cache.forget(userId);
  };
  forget();
  afterCommit(forget, null);
}

/** Forgets one session id in this process (signing out). */
export function forgetCachedSession(sid: string): void {
  for (const cache of live) cache.forgetSession(sid);
}
