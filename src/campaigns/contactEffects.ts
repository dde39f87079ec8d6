// The effect of a change to contacts, for features below campaigns that cannot call it themselves
// (the composition layer installs it into contacts): segments re-evaluated for the contacts, then
// campaigns triggered by the segments they entered.

import type { ChangeScope } from '../contacts/index.ts';
import type { Tx } from '../db/pool.ts';
import { reevaluateSegmentsForContacts } from '../segments/index.ts';
import { enrollForSegmentChanges } from './enroll.ts';

export async function afterContactsChanged(
  tx: Tx,
  workspaceId: string,
  contactIds: string[],
  scope: ChangeScope,
): Promise<void> {
  const changes = await reevaluateSegmentsForContacts(tx, { workspaceId, contactIds, ...scope });
  await enrollForSegmentChanges(tx, workspaceId, changes);
}
