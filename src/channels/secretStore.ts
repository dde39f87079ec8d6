// Channel secrets (SMTP password, DKIM key, and every later channel's credentials) for key
// rotation. Each is sealed with the context `<workspace>:<channel>:<field>`, the one rule every
// channel follows (channelSecretContext), so rotation can open any of them without knowing the
// channel.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import {
  currentKeyRing,
  decryptSecret,
  encryptSecret,
  type SecretStore,
  StoredSecret,
} from '../secrets/index.ts';

export const channelSecretContext = (workspaceId: string, channel: string, field: string) =>
  `${workspaceId}:${channel}:${field}`;

const Row = z.object({
  workspace_id: z.string(),
  channel: z.string(),
  secrets: z.record(z.string(), StoredSecret),
});

/** Rows with at least one value sealed under another key. */
const staleUnder = (keyId: string) => sql.fragment`
  exists (select 1 from jsonb_each(secrets) as s(field, value) where s.value->>'keyId' <> ${keyId})
`;

async function resealBatch(db: Db, limit: number): Promise<number> {
  const ring = currentKeyRing();
  return db.transaction(async (tx) => {
    const rows = await tx.any(sql.type(Row)`
      select workspace_id, channel, secrets from channel_configs where ${staleUnder(ring.current.id)}
      order by workspace_id, channel limit ${limit} for update
    `);
    for (const row of rows) {
      const resealed = Object.fromEntries(
        Object.entries(row.secrets).map(([field, stored]) => {
          const context = channelSecretContext(row.workspace_id, row.channel, field);
          return [field, encryptSecret(decryptSecret(stored, context, ring), context, ring)];
        }),
      );
      // The values are unchanged, so `version` stays: pooled transports need no rebuild.
      await tx.query(sql.typeAlias('void')`
        update channel_configs set secrets = ${sql.jsonb(resealed as never)}
        where workspace_id = ${row.workspace_id} and channel = ${row.channel}
      `);
    }
    return rows.length;
  });
}

export const channelSecretStore: SecretStore = {
  name: 'channel_configs.secrets',
  countStale: (db) =>
    db.oneFirst(sql.type(z.object({ count: z.number().int() }))`
      select count(*)::int as count from channel_configs where ${staleUnder(currentKeyRing().current.id)}
    `),
  resealBatch,
};
