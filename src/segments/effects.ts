// What follows contacts entering or leaving a segment: campaigns triggered by the segment enroll
// them. Campaigns sit above segments, so the work is handed in on the context, as
// `app.effects.segments` (src/campaigns/feature.ts provides it, src/app/features.ts gathers it).
import type { Tx } from '../db/pool.ts';
import type { SegmentChange } from './evaluate.ts';

export type SegmentEffects = {
  /** Contacts entered or left segments in `tx`: whatever follows happens in the same transaction. */
  membershipChanged: (tx: Tx, workspaceId: string, changes: SegmentChange[]) => Promise<void>;
};

declare module '../core/context.ts' {
  interface FeatureEffects {
    segments: SegmentEffects;
  }
}
