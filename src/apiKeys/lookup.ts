// How authentication (src/http/principal.ts) finds a presented key and notes its use; the
// composition layer hands this to the HTTP kit through the application context.
import type { DatabasePool } from 'slonik';
import type { ApiKeyLookup, AppContext } from '../core/context.ts';
import { findLiveApiKey } from './cache.ts';
import { hashApiKey, isWellFormedApiKey } from './keyFormat.ts';
import { touchApiKeyLastUsed } from './queries.ts';

// last_used_at is written at most once a minute per key; this map spares even the conditional
// UPDATE on a hot key. Losing it (restart, another process) only costs one extra UPDATE.
const lastTouched = new Map<string, number>();

function touchLater(app: AppContext, key: { workspace_id: string; id: string }): void {
  const now = Date.now();
  if ((lastTouched.get(key.id) ?? 0) > now - 60_000) return;
  lastTouched.set(key.id, now);
  touchApiKeyLastUsed(app.db, key.workspace_id, key.id).catch((error) =>
    app.log.warn({ err: error, keyId: key.id }, 'last_used_at update failed'),
  );
}

async function findKey(db: DatabasePool, key: string) {
  if (!isWellFormedApiKey(key)) return null;
  return findLiveApiKey(db, hashApiKey(key));
}

export const apiKeyLookup: ApiKeyLookup = { find: findKey, used: touchLater };
