// SQL for publishable keys, the identity secret and the public request counters. Every key query
// filters by workspace first, but the two a request authenticates with: the request carries only
// the key (or, for a preflight, only its origin).
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { StoredSecret } from '../secrets/index.ts';

export const PublishableKeyRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  key: z.string(),
  allowed_origins: z.array(z.string()),
  allowed_event_types: z.array(z.string()),
  last_used_at: z.string().nullable(),
  created_at: z.string(),
});
export type PublishableKeyRow = z.infer<typeof PublishableKeyRow>;

const columns = sql.fragment`id, workspace_id, name, key, allowed_origins, allowed_event_types, last_used_at, created_at`;

export async function insertPublishableKey(
  db: Db,
  input: {
    id: string;
    workspaceId: string;
    name: string;
    key: string;
    allowedOrigins: readonly string[];
    allowedEventTypes: readonly string[];
    createdBy: string | null;
  },
): Promise<PublishableKeyRow> {
  return db.one(sql.type(PublishableKeyRow)`
    insert into publishable_keys (id, workspace_id, name, key, allowed_origins, allowed_event_types, created_by)
    values (${input.id}, ${input.workspaceId}, ${input.name}, ${input.key},
            ${sql.array(input.allowedOrigins as string[], 'text')},
            ${sql.array(input.allowedEventTypes as string[], 'text')}, ${input.createdBy})
    returning ${columns}
  `);
}

export async function listLivePublishableKeys(db: Db, workspaceId: string) {
  return db.any(sql.type(PublishableKeyRow)`
    select ${columns} from publishable_keys
    where workspace_id = ${workspaceId} and revoked_at is null
    order by created_at desc, id desc
  `);
}

export async function updatePublishableKey(
  db: Db,
  workspaceId: string,
  keyId: string,
  change: { name?: string; allowedOrigins?: readonly string[]; allowedEventTypes?: readonly string[] },
): Promise<PublishableKeyRow | null> {
  const origins = change.allowedOrigins ? sql.array(change.allowedOrigins as string[], 'text') : null;
  const types = change.allowedEventTypes ? sql.array(change.allowedEventTypes as string[], 'text') : null;
  return db.maybeOne(sql.type(PublishableKeyRow)`
    update publishable_keys set
      name = coalesce(${change.name ?? null}, name),
      allowed_origins = coalesce(${origins}, allowed_origins),
      allowed_event_types = coalesce(${types}, allowed_event_types)
    where workspace_id = ${workspaceId} and id = ${keyId} and revoked_at is null
    returning ${columns}
  `);
}

export async function revokePublishableKey(db: Db, workspaceId: string, keyId: string): Promise<boolean> {
  const result = await db.query(sql.typeAlias('id')`
    update publishable_keys set revoked_at = now()
    where workspace_id = ${workspaceId} and id = ${keyId} and revoked_at is null
    returning id
  `);
  return result.rowCount === 1;
}

/** The live key as presented by a browser (the exception: no workspace is known yet). */
export async function findLivePublishableKey(db: Db, key: string): Promise<PublishableKeyRow | null> {
  return db.maybeOne(sql.prepared('publishable_keys.find_live', PublishableKeyRow)`
    select ${columns} from publishable_keys where key = ${key} and revoked_at is null
  `);
}

/** Whether any live key lists this origin (a preflight names no key). */
export async function anyLiveKeyAllowsOrigin(db: Db, origin: string): Promise<boolean> {
  return db.exists(sql.typeAlias('void')`
    select from publishable_keys
    where revoked_at is null and allowed_origins @> ${sql.array([origin], 'text')}
  `);
}

export async function touchPublishableKeyLastUsed(db: Db, workspaceId: string, keyId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    update publishable_keys set last_used_at = now()
    where workspace_id = ${workspaceId} and id = ${keyId} and (last_used_at is null or last_used_at < now() - interval '1 minute')
  `);
}

const IdentitySecretRow = z.object({ secret: StoredSecret, rotated_at: z.string() });
export type IdentitySecretRow = z.infer<typeof IdentitySecretRow>;

export async function findIdentitySecret(db: Db, workspaceId: string): Promise<IdentitySecretRow | null> {
  return db.maybeOne(sql.type(IdentitySecretRow)`
    select secret, rotated_at from identity_secrets where workspace_id = ${workspaceId}
  `);
}

/** Stores the first secret; a concurrent first read keeps the one that won. */
export async function insertIdentitySecretIfAbsent(db: Db, workspaceId: string, secret: StoredSecret) {
  await db.query(sql.typeAlias('void')`
    insert into identity_secrets (workspace_id, secret) values (${workspaceId}, ${sql.jsonb(secret as never)})
    on conflict (workspace_id) do nothing
  `);
}

export async function replaceIdentitySecret(db: Db, workspaceId: string, secret: StoredSecret) {
  return db.one(sql.type(IdentitySecretRow)`
    insert into identity_secrets (workspace_id, secret) values (${workspaceId}, ${sql.jsonb(secret as never)})
    on conflict (workspace_id) do update set secret = excluded.secret, rotated_at = now()
    returning secret, rotated_at
  `);
}

const CountRow = z.object({ hits: z.number().int(), retry_after: z.number() });

/** Counts one request in the bucket's current fixed window; the count so far and when it ends. */
export async function countRequest(db: Db, bucket: string, windowSeconds: number) {
  return db.one(sql.type(CountRow)`
    with window_start as (
      select to_timestamp(floor(extract(epoch from now()) / ${windowSeconds}) * ${windowSeconds}) as at
    )
    insert into public_request_counts (bucket, window_start, hits)
    select ${bucket}, at, 1 from window_start
    on conflict (bucket, window_start) do update set hits = public_request_counts.hits + 1
    returning hits,
      extract(epoch from window_start + make_interval(secs => ${windowSeconds}) - now())::float8 as retry_after
  `);
}

export async function pruneRequestCounts(db: Db, olderThanSeconds: number): Promise<void> {
  await db.query(sql.typeAlias('void')`
    delete from public_request_counts where window_start < now() - make_interval(secs => ${olderThanSeconds})
  `);
}
