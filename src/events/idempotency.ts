// Idempotency keys: the first request with a key claims it for its event; a retry finds the claim
// and replays that event. A concurrent retry waits on the unique index until the first commits.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

const Claimed = z.object({ key: z.string(), event_id: z.string(), request_digest: z.string().nullable() });

/** What a key was first used for: its event, and the digest of that request (null: claimed before digests were kept). */
export type KeyClaim = { eventId: string; digest: string | null };

/** A request's fingerprint: SHA-256 of the item's fields in a fixed key order, the key itself left out. */
export function requestDigest(item: object): string {
  return createHash('sha256').update(canonicalJson(item)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const entries = Object.entries(value)
    .filter(([name, field]) => field !== undefined && name !== 'idempotencyKey')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([name, field]) => `${JSON.stringify(name)}:${canonicalJson(field)}`).join(',')}}`;
}

/** Claims each key for its event id; returns the keys that were already taken, with their first use. */
export async function claimIdempotencyKeys(
  db: Db,
  workspaceId: string,
  claims: { key: string; eventId: string; digest: string }[],
): Promise<Map<string, KeyClaim>> {
  if (claims.length === 0) return new Map();
  const keys = claims.map((claim) => claim.key);
  const inserted = await db.anyFirst(sql.prepared('events.claim_keys', z.object({ key: z.string() }))`
    insert into event_idempotency_keys (workspace_id, key, event_id, request_digest)
    select ${workspaceId}, key, event_id, request_digest
    from unnest(${sql.array(keys, 'text')}::text[], ${sql.array(
      claims.map((claim) => claim.eventId),
      'text',
    )}::text[], ${sql.array(
      claims.map((claim) => claim.digest),
      'text',
    )}::text[]) as u(key, event_id, request_digest)
    on conflict (workspace_id, key) do nothing
    returning key
  `);
  if (inserted.length === claims.length) return new Map();
  const fresh = new Set(inserted);
  const taken = keys.filter((key) => !fresh.has(key));
  const rows = await db.any(sql.type(Claimed)`
    select key, event_id, request_digest from event_idempotency_keys
    where workspace_id = ${workspaceId} and key = any(${sql.array(taken, 'text')})
  `);
  return new Map(rows.map((row) => [row.key, { eventId: row.event_id, digest: row.request_digest }]));
}

/** Keys are kept for 7 days (the promise is 24 hours). */
export async function pruneIdempotencyKeys(db: Db): Promise<number> {
  const result = await db.query(sql.typeAlias('void')`
    delete from event_idempotency_keys where created_at < now() - interval '7 days'
  `);
  return result.rowCount;
}
