// Idempotency keys: the first request with a key claims it for its event; a retry finds the claim
// and replays that event. A concurrent retry waits on the unique index until the first commits.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

const Claimed = z.object({ key: z.string(), event_id: z.string() });

/** Claims each key for its event id; returns the keys that were already taken, with their event. */
export async function claimIdempotencyKeys(
  db: Db,
  workspaceId: string,
  claims: { key: string; eventId: string }[],
): Promise<Map<string, string>> {
  if (claims.length === 0) return new Map();
  const keys = claims.map((claim) => claim.key);
  const inserted = await db.anyFirst(sql.prepared('events.claim_keys', z.object({ key: z.string() }))`
    insert into event_idempotency_keys (workspace_id, key, event_id)
    select ${workspaceId}, key, event_id
    from unnest(${sql.array(keys, 'text')}::text[], ${sql.array(
      claims.map((claim) => claim.eventId),
      'text',
    )}::text[]) as u(key, event_id)
    on conflict (workspace_id, key) do nothing
    returning key
  `);
  if (inserted.length === claims.length) return new Map();
  const fresh = new Set(inserted);
  const taken = keys.filter((key) => !fresh.has(key));
  const rows = await db.any(sql.type(Claimed)`
    select key, event_id from event_idempotency_keys
    where workspace_id = ${workspaceId} and key = any(${sql.array(taken, 'text')})
  `);
  return new Map(rows.map((row) => [row.key, row.event_id]));
}

/** Keys are kept for 7 days (the promise is 24 hours). */
export async function pruneIdempotencyKeys(db: Db): Promise<number> {
  const result = await db.query(sql.typeAlias('void')`
    delete from event_idempotency_keys where created_at < now() - interval '7 days'
  `);
  return result.rowCount;
}
