// SQL of transactional sends' idempotency keys: a key names the message it first made, for 7 days.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

/**
 * Claims the key for the message; returns the message that already holds it, or null when the
 * claim is new. A concurrent request with the key waits on the primary key until the first commits.
 */
export async function claimIdempotencyKey(db: Db, workspaceId: string, key: string, messageId: string) {
  const inserted = await db.maybeOne(sql.type(z.object({ message_id: z.string() }))`
    insert into message_idempotency_keys (workspace_id, key, message_id)
    values (${workspaceId}, ${key}, ${messageId})
    on conflict (workspace_id, key) do nothing
    returning message_id
  `);
  if (inserted) return null;
  return db.oneFirst(sql.type(z.object({ message_id: z.string() }))`
    select message_id from message_idempotency_keys where workspace_id = ${workspaceId} and key = ${key}
  `);
}

export async function pruneMessageIdempotencyKeys(db: Db): Promise<number> {
  const result = await db.query(sql.typeAlias('void')`
    delete from message_idempotency_keys where created_at < now() - interval '7 days'
  `);
  return result.rowCount;
}
