// The workspace's tracking switches, kept on the workspace row (`workspaces.tracking`, beside its
// campaign pacing) because the send reads them with the rest of its context in one statement.

import { recordAudit } from '../audit/index.ts';
import { NotFoundError } from '../core/errors.ts';
import type { Db } from '../db/pool.ts';
import { readWorkspaceTracking, writeWorkspaceTracking } from './queries.ts';

export async function readTrackingSettings(db: Db, workspaceId: string) {
  const switches = await readWorkspaceTracking(db, workspaceId);
  if (!switches) throw new NotFoundError('Workspace');
  return switches;
}

export async function writeTrackingSettings(
  db: Db,
  workspaceId: string,
  switches: { opens: boolean; clicks: boolean },
) {
  return db.transaction(async (tx) => {
    const before = await readTrackingSettings(tx, workspaceId);
    await writeWorkspaceTracking(tx, workspaceId, switches);
    const after = await readTrackingSettings(tx, workspaceId);
    await recordAudit(tx, {
      workspaceId,
      action: 'trackingSettings.updated',
      targetId: workspaceId,
      before,
      after,
    });
    return after;
  });
}
