import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

export const ApiKeyRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  prefix: z.string(),
  last4: z.string(),
  scopes: z.array(z.string()),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  created_at: z.string(),
});
export type ApiKeyRow = z.infer<typeof ApiKeyRow>;

const columns = sql.fragment`id, workspace_id, name, prefix, last4, scopes, expires_at, last_used_at, revoked_at, created_at`;

/** The key with this hash if it is neither revoked nor expired. */
export async function findLiveApiKeyByHash(db: Db, keyHash: string): Promise<ApiKeyRow | null> {
  return db.maybeOne(sql.prepared('api_keys.find_live_by_hash', ApiKeyRow)`
    select ${columns} from api_keys
    where key_hash = ${keyHash} and revoked_at is null and (expires_at is null or expires_at > now())
  `);
}

export async function insertApiKey(
  db: Db,
  input: {
    id: string;
    workspaceId: string;
    name: string;
    keyHash: string;
    prefix: string;
    last4: string;
    scopes: readonly string[];
    expiresAt: string | null;
    createdBy: string | null;
  },
): Promise<ApiKeyRow> {
  return db.one(sql.type(ApiKeyRow)`
    insert into api_keys (id, workspace_id, name, key_hash, prefix, last4, scopes, expires_at, created_by)
    values (${input.id}, ${input.workspaceId}, ${input.name}, ${input.keyHash}, ${input.prefix}, ${input.last4},
            ${sql.array(input.scopes as string[], 'text')}, ${input.expiresAt}, ${input.createdBy})
    returning ${columns}
  `);
}

/** Keys that can still authenticate, newest first. Revoked keys are not listed. */
export async function listLiveApiKeys(db: Db, workspaceId: string): Promise<readonly ApiKeyRow[]> {
  return db.any(sql.type(ApiKeyRow)`
    select ${columns} from api_keys
    where workspace_id = ${workspaceId} and revoked_at is null
    order by created_at desc, id desc
  `);
}

export async function revokeApiKey(db: Db, workspaceId: string, keyId: string): Promise<boolean> {
  const result = await db.query(sql.typeAlias('id')`
    update api_keys set revoked_at = now()
    where workspace_id = ${workspaceId} and id = ${keyId} and revoked_at is null
    returning id
  `);
  return result.rowCount === 1;
}

/** Writes last_used_at at most once a minute per key, whatever the request rate. */
export async function touchApiKeyLastUsed(db: Db, workspaceId: string, keyId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    update api_keys set last_used_at = now()
    where workspace_id = ${workspaceId} and id = ${keyId} and (last_used_at is null or last_used_at < now() - interval '1 minute')
  `);
}
