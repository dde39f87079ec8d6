// What follows any change to contacts: segments re-evaluated for them, then campaigns triggered
// by the segments they entered. Ingest, contact writes and merges all end here.

import { enrollForSegmentChanges } from '../campaigns/enroll.ts';
import type { Tx } from '../db/pool.ts';
import { reevaluateSegmentsForContacts, type SegmentChange } from '../segments/evaluate.ts';

export type ChangeScope = { fields?: string[]; all?: boolean; eventTypes?: string[]; score?: boolean };

export async function contactsChanged(
  tx: Tx,
  workspaceId: string,
  contactIds: string[],
  scope: ChangeScope,
): Promise<SegmentChange[]> {
  if (contactIds.length === 0) return [];
  const changes = await reevaluateSegmentsForContacts(tx, { workspaceId, contactIds, ...scope });
  await enrollForSegmentChanges(tx, workspaceId, changes);
  return changes;
}
