// Publishable keys: made, listed, changed and revoked by workspace ADMINs. A key's origins and
// event types are its whole authority, so they are part of the key, not of the request.

import { recordAudit } from '../audit/index.ts';
import { NotFoundError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/pool.ts';
import { generatePublishableKey } from './keyFormat.ts';
import {
  insertPublishableKey,
  listLivePublishableKeys,
  type PublishableKeyRow,
  revokePublishableKey,
  updatePublishableKey,
} from './queries.ts';

export type PublishableKeyInput = {
  name: string;
  allowedOrigins: string[];
  allowedEventTypes: string[];
};

export function toPublishableKey(row: PublishableKeyRow) {
  return {
    id: row.id,
    name: row.name,
    key: row.key,
    allowedOrigins: row.allowed_origins,
    allowedEventTypes: row.allowed_event_types,
    lastUsedAt: row.last_used_at,
    createdAt: row.created_at,
  };
}

export async function createPublishableKey(
  db: Db,
  workspaceId: string,
  input: PublishableKeyInput & { createdBy: string | null },
) {
  return db.transaction(async (tx) => {
    const id = newId('publishableKey');
    const row = await insertPublishableKey(tx, { id, workspaceId, key: generatePublishableKey(), ...input });
    const after = toPublishableKey(row);
    await recordAudit(tx, { workspaceId, action: 'publishableKey.created', targetId: id, after });
    return after;
  });
}

export async function listPublishableKeys(db: Db, workspaceId: string) {
  return (await listLivePublishableKeys(db, workspaceId)).map(toPublishableKey);
}

export async function changePublishableKey(
  db: Db,
  workspaceId: string,
  keyId: string,
  change: Partial<PublishableKeyInput>,
) {
  return db.transaction(async (tx) => {
    const current = (await listLivePublishableKeys(tx, workspaceId)).find((key) => key.id === keyId);
    const row = current && (await updatePublishableKey(tx, workspaceId, keyId, change));
    if (!row) throw new NotFoundError('Publishable key');
    const [before, after] = [toPublishableKey(current), toPublishableKey(row)];
    await recordAudit(tx, { workspaceId, action: 'publishableKey.updated', targetId: keyId, before, after });
    return after;
  });
}

export async function revokePublishable(db: Db, workspaceId: string, keyId: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await revokePublishableKey(tx, workspaceId, keyId))) throw new NotFoundError('Publishable key');
    await recordAudit(tx, { workspaceId, action: 'publishableKey.revoked', targetId: keyId });
  });
}
