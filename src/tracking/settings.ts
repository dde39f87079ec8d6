// The workspace's tracking switches, kept on the workspace row (`workspaces.tracking`, beside its
// campaign pacing) because the send reads them with the rest of its context in one statement.

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
  await writeWorkspaceTracking(db, workspaceId, switches);
  return readTrackingSettings(db, workspaceId);
}
