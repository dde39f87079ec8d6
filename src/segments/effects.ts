// What follows contacts entering or leaving a segment: campaigns triggered by the segment enroll
// them. Campaigns sit above segments, so the work is handed in: the composition layer installs it
// (src/app/effects.ts) before any process computes a segment.
import type { Tx } from '../db/pool.ts';
import type { SegmentChange } from './evaluate.ts';

export type MembershipChangedEffect = (
  tx: Tx,
  workspaceId: string,
  changes: SegmentChange[],
) => Promise<void>;

let effect: MembershipChangedEffect | undefined;

export function installMembershipChangedEffect(handler: MembershipChangedEffect): void {
  effect = handler;
}

export async function membershipChanged(
  tx: Tx,
  workspaceId: string,
  changes: SegmentChange[],
): Promise<void> {
  if (!effect) throw new Error('segment effects are not installed (src/app/effects.ts)');
  await effect(tx, workspaceId, changes);
}
