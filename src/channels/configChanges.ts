// Saving and removing a channel's configuration, each with its audit entry in the same
// transaction. The entry shows the settings and which sealed secrets are set or were changed,
// never a secret's value, sealed or not.
import { recordAudit } from '../audit/index.ts';
import type { Db } from '../db/pool.ts';
import {
  type ChannelConfigRow,
  deleteChannelConfig,
  findChannelConfig,
  upsertChannelConfig,
} from './queries.ts';

function audited(row: ChannelConfigRow | null, previous: ChannelConfigRow | null = null) {
  if (!row) return null;
  const names = Object.keys(row.secrets);
  const changed = names.filter(
    (name) => JSON.stringify(row.secrets[name]) !== JSON.stringify(previous?.secrets[name]),
  );
  return { ...row.settings, sealed: { set: names, changed: previous ? changed : names } };
}

export async function saveChannelConfig(db: Db, input: Parameters<typeof upsertChannelConfig>[1]) {
  return db.transaction(async (tx) => {
    const previous = await findChannelConfig(tx, input.workspaceId, input.channel);
    const row = await upsertChannelConfig(tx, input);
    await recordAudit(tx, {
      workspaceId: input.workspaceId,
      action: previous ? 'channel.updated' : 'channel.configured',
      targetId: input.channel,
      before: audited(previous),
      after: audited(row, previous),
    });
    return row;
  });
}

/** Whether there was a configuration to remove. */
export async function removeChannelConfig(db: Db, workspaceId: string, channel: string) {
  return db.transaction(async (tx) => {
    const previous = await findChannelConfig(tx, workspaceId, channel);
    if (!(await deleteChannelConfig(tx, workspaceId, channel))) return false;
    const before = audited(previous);
    await recordAudit(tx, { workspaceId, action: 'channel.removed', targetId: channel, before });
    return true;
  });
}
