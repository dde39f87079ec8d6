// Channel secrets for key rotation: every channel's credentials (SMTP password, DKIM key, bot
// token, …) in channel_configs.secrets, sealed with the context `<workspace>:<channel>:<field>`
// (channelSecretContext: the one rule every channel follows), and the email feedback endpoints'
// credentials, sealed with `<workspace>:feedback:<provider>:<field>`. Rotation opens each value
// with its context and seals it again under the current key, row by row, in short transactions.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { currentKeyRing, resealSecret, type SecretStore, StoredSecret } from '../secrets/index.ts';

export const channelSecretContext = (workspaceId: string, channel: string, field: string) =>
  `${workspaceId}:${channel}:${field}`;

const Row = z.object({
  workspace_id: z.string(),
  /** The channel, or the feedback provider: the part of the context that names the row. */
  kind: z.string(),
  key: z.string(),
  secrets: z.record(z.string(), StoredSecret),
});
type Row = z.infer<typeof Row>;

type JsonbSecrets = {
  table: 'channel_configs' | 'email_feedback_endpoints';
  /** The column naming the row within its workspace (channel, or provider). */
  kind: 'channel' | 'provider';
  /** The row's unique key, for the update. */
  key: 'channel' | 'id';
  context: (row: Row, field: string) => string;
};

/** Rows with at least one value sealed under another key. */
const staleUnder = (keyId: string) => sql.fragment`
  exists (select 1 from jsonb_each(secrets) as s(field, value) where s.value->>'keyId' <> ${keyId})
`;

function jsonbSecretStore(spec: JsonbSecrets): SecretStore {
  const table = sql.identifier([spec.table]);
  const kind = sql.identifier([spec.kind]);
  const key = sql.identifier([spec.key]);
  return {
    name: `${spec.table}.secrets`,
    countStale: (db: Db) =>
      db.oneFirst(sql.type(z.object({ count: z.number().int() }))`
        select count(*)::int as count from ${table} where ${staleUnder(currentKeyRing().current.id)}
      `),
    resealBatch: (db: Db, limit: number) => {
      const ring = currentKeyRing();
      return db.transaction(async (tx) => {
        const rows = await tx.any(sql.type(Row)`
          select workspace_id, ${kind} as kind, ${key} as key, secrets from ${table}
          where ${staleUnder(ring.current.id)}
          order by workspace_id, ${key} limit ${limit} for update
        `);
        for (const row of rows) {
          const resealed = Object.fromEntries(
            Object.entries(row.secrets).map(([field, stored]) => {
              const context = spec.context(row, field);
              return [field, resealSecret(stored, context, ring)];
            }),
          );
          // The values are unchanged, so nothing else moves (channel versions, pooled transports).
          await tx.query(sql.typeAlias('void')`
            update ${table} set secrets = ${sql.jsonb(resealed as never)}
            where workspace_id = ${row.workspace_id} and ${key} = ${row.key}
          `);
        }
        return rows.length;
      });
    },
  };
}

export const channelSecretStores: SecretStore[] = [
  jsonbSecretStore({
    table: 'channel_configs',
    kind: 'channel',
    key: 'channel',
    context: (row, field) => channelSecretContext(row.workspace_id, row.kind, field),
  }),
  jsonbSecretStore({
    table: 'email_feedback_endpoints',
    kind: 'provider',
    key: 'id',
    context: (row, field) => `${row.workspace_id}:feedback:${row.kind}:${field}`,
  }),
];
