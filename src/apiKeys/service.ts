import { recordAudit } from '../audit/index.ts';
import { NotFoundError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/pool.ts';
import type { Scope } from '../http/scopes.ts';
import { forgetCachedApiKeys } from './cache.ts';
import { generateApiKey, hashApiKey, keyDisplayParts, maskKey } from './keyFormat.ts';
import { type ApiKeyRow, insertApiKey, listLiveApiKeys, revokeApiKey } from './queries.ts';

export type CreatedApiKey = {
  id: string;
  name: string;
  key: string;
  scopes: Scope[];
  expiresAt?: string;
  createdAt: string;
};

function expiry(row: ApiKeyRow) {
  return row.expires_at ? { expiresAt: row.expires_at } : {};
}

export function toListedApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    key: maskKey(row.prefix, row.last4),
    scopes: row.scopes as Scope[],
    ...expiry(row),
    lastUsedAt: row.last_used_at,
    createdAt: row.created_at,
  };
}

export async function createApiKey(
  db: Db,
  workspaceId: string,
  input: { name: string; scopes: Scope[]; expiresAt?: string; createdBy: string | null },
): Promise<CreatedApiKey> {
  const key = generateApiKey();
  const row = await db.transaction(async (tx) => {
    const inserted = await insertApiKey(tx, {
      id: newId('apiKey'),
      workspaceId,
      name: input.name,
      keyHash: hashApiKey(key),
      ...keyDisplayParts(key),
      scopes: input.scopes,
      expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
      createdBy: input.createdBy,
    });
    const after = toListedApiKey(inserted);
    await recordAudit(tx, { workspaceId, action: 'apiKey.created', targetId: inserted.id, after });
    return inserted;
  });
  return {
    id: row.id,
    name: row.name,
    key,
    scopes: row.scopes as Scope[],
    ...expiry(row),
    createdAt: row.created_at,
  };
}

export async function listApiKeys(db: Db, workspaceId: string) {
  return (await listLiveApiKeys(db, workspaceId)).map(toListedApiKey);
}

export async function revokeKey(db: Db, workspaceId: string, keyId: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await revokeApiKey(tx, workspaceId, keyId))) throw new NotFoundError('API key');
    await recordAudit(tx, { workspaceId, action: 'apiKey.revoked', targetId: keyId });
  });
  forgetCachedApiKeys(db);
}
