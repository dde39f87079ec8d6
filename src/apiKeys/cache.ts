// Live API keys cached by hash in each web process. Authenticating a request by key was a
// round-trip to PostgreSQL every time, a third of the statements of single-event ingest.
//
// Staying right: a trigger (sql/0007) NOTIFYs on every change that can end a key's life
// (revocation, expiry, scopes, deletion with its workspace); each process LISTENs and drops its
// whole cache on any notification, and the process that revoked drops it at once, before it
// answers. While the listener is not connected (starting, reconnecting) nothing is cached, every
// lookup goes to the database. A lookup that was in flight when the cache was dropped does not
// store its (possibly older) answer. Expiry is checked on every hit, and entries are refreshed
// after ENTRY_TTL_MS whatever happens. Unknown hashes are never cached: a key created a moment
// ago works at once, and guessing cannot fill memory.

import type { AppContext } from '../core/context.ts';
import { type Listener, subscribe } from '../db/listener.ts';
import type { Db } from '../db/pool.ts';
import { type ApiKeyRow, findLiveApiKeyByHash } from './queries.ts';

export const API_KEYS_CHANNEL = 'switchboard_api_keys';
const ENTRY_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

type Entry = { row: ApiKeyRow; cachedAt: number };

class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  private listening = false;
  private readonly listener: Listener;

  constructor(context: AppContext) {
    this.listener = subscribe({
      name: 'api key cache',
      databaseUrl: context.databaseUrl,
      channels: [API_KEYS_CHANNEL],
      log: context.log,
      onNotify: () => this.drop(),
      onConnect: () => {
        this.drop();
        this.listening = true;
      },
      onDisconnect: () => {
        this.listening = false;
        this.drop();
      },
    });
  }

  async find(db: Db, keyHash: string): Promise<ApiKeyRow | null> {
    const now = Date.now();
    const cached = this.entries.get(keyHash);
    if (cached && now - cached.cachedAt < ENTRY_TTL_MS && !expired(cached.row, now)) return cached.row;
    const generation = this.generation;
    const row = await findLiveApiKeyByHash(db, keyHash);
    if (row && this.listening && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(keyHash, { row, cachedAt: now });
    } else if (!row) this.entries.delete(keyHash);
    return row;
  }

  drop(): void {
    this.generation++;
    this.entries.clear();
  }

  close(): Promise<void> {
    return this.listener.close();
  }
}

function expired(row: ApiKeyRow, now: number): boolean {
  return row.expires_at !== null && Date.parse(row.expires_at) <= now;
}

const caches = new WeakMap<Db, ApiKeyCache>();

/** Starts caching the keys `context.db` authenticates; the returned function stops it. */
export function startApiKeyCache(context: AppContext): () => Promise<void> {
  const cache = new ApiKeyCache(context);
  caches.set(context.db, cache);
  return async () => {
    if (caches.get(context.db) === cache) caches.delete(context.db);
    await cache.close();
  };
}

/** The live key with this hash: from the cache when this pool has one, else from the database. */
export function findLiveApiKey(db: Db, keyHash: string): Promise<ApiKeyRow | null> {
  const cache = caches.get(db);
  return cache ? cache.find(db, keyHash) : findLiveApiKeyByHash(db, keyHash);
}

/** Forgets every cached key of this pool at once (the NOTIFY reaches other processes). */
export function forgetCachedApiKeys(db: Db): void {
  caches.get(db)?.drop();
}
