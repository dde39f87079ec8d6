// SQL for channel configurations: one row per workspace and channel. Every query filters by
// workspace first. `settings` is what the API shows; `secrets` holds only sealed values.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { StoredSecret } from '../secrets/index.ts';

export const ChannelConfigRow = z.object({
  workspace_id: z.string(),
  /** A registered channel's name (registry.ts; the database holds it to the registry, see sql/0042). */
  channel: z.string(),
  settings: z.record(z.string(), z.unknown()),
  secrets: z.record(z.string(), StoredSecret),
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ChannelConfigRow = z.infer<typeof ChannelConfigRow>;

const columns = sql.fragment`workspace_id, channel, settings, secrets, version, created_at, updated_at`;

export async function findChannelConfig(
  db: Db,
  workspaceId: string,
  channel: string,
): Promise<ChannelConfigRow | null> {
  return db.maybeOne(sql.type(ChannelConfigRow)`
    select ${columns} from channel_configs where workspace_id = ${workspaceId} and channel = ${channel}
  `);
}

/** Creates or replaces the row; a replacement bumps `version` so cached transports are rebuilt. */
export async function upsertChannelConfig(
  db: Db,
  input: {
    workspaceId: string;
    channel: string;
    settings: Record<string, unknown>;
    secrets: Record<string, StoredSecret>;
  },
): Promise<ChannelConfigRow> {
  return db.one(sql.type(ChannelConfigRow)`
    insert into channel_configs (workspace_id, channel, settings, secrets)
    values (${input.workspaceId}, ${input.channel}, ${sql.jsonb(input.settings as never)},
            ${sql.jsonb(input.secrets as never)})
    on conflict (workspace_id, channel) do update
      set settings = excluded.settings, secrets = excluded.secrets,
          version = channel_configs.version + 1, updated_at = now()
    returning ${columns}
  `);
}

/** Whether a row was there to delete. */
export async function deleteChannelConfig(db: Db, workspaceId: string, channel: string): Promise<boolean> {
  const result = await db.query(sql.typeAlias('void')`
    delete from channel_configs where workspace_id = ${workspaceId} and channel = ${channel}
  `);
  return result.rowCount > 0;
}
