// The identity secrets (sealed, one per workspace) for key rotation: each opened with its context
// and sealed again under the current key, a batch of rows per short transaction.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { currentKeyRing, resealSecret, type SecretStore, StoredSecret } from '../secrets/index.ts';
import { identitySecretContext } from './identity.ts';

const Row = z.object({ workspace_id: z.string(), secret: StoredSecret });

const staleUnder = (keyId: string) => sql.fragment`secret->>'keyId' <> ${keyId}`;

export const identitySecretStore: SecretStore = {
  name: 'identity_secrets.secret',
  countStale: (db: Db) =>
    db.oneFirst(sql.type(z.object({ count: z.number().int() }))`
      select count(*)::int as count from identity_secrets where ${staleUnder(currentKeyRing().current.id)}
    `),
  resealBatch: (db: Db, limit: number) => {
    const ring = currentKeyRing();
    return db.transaction(async (tx) => {
      const rows = await tx.any(sql.type(Row)`
        select workspace_id, secret from identity_secrets where ${staleUnder(ring.current.id)}
        order by workspace_id limit ${limit} for update
      `);
      for (const row of rows) {
        const context = identitySecretContext(row.workspace_id);
        const resealed = resealSecret(row.secret, context, ring);
        // rotated_at stays: the secret itself did not change.
        await tx.query(sql.typeAlias('void')`
          update identity_secrets set secret = ${sql.jsonb(resealed as never)} where workspace_id = ${row.workspace_id}
        `);
      }
      return rows.length;
    });
  },
};
