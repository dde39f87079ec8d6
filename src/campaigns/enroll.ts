// Enrollment at ingest: an active campaign whose trigger matches an event (type and `where` on its
// metadata) or a segment the contact just entered enrolls the contact, as its reentry policy
// allows. Callers hold the contacts' row locks, so the reentry check cannot race.
import { newId } from '../db/ids.ts';
import type { Tx } from '../db/pool.ts';
import { emitMany } from '../outbox/emit.ts';
import type { SegmentChange } from '../segments/index.ts';
import { type MetadataCondition, matchesMetadataConditions } from '../segments/index.ts';
import {
  type EnrollmentCandidate,
  findActiveTriggeredCampaigns,
  insertAllowedEnrollments,
  type TriggeredCampaignRow,
} from './enrollQueries.ts';
import { FIRST_STEP } from './flow.ts';
import { enqueueSteps } from './stepQueue.ts';

export type TriggerEvent = { id: string; contactId: string; type: string; metadata: Record<string, unknown> };

type Candidate = { campaign: TriggeredCampaignRow; contactId: string; eventId: string | null };

function candidates(
  campaigns: readonly TriggeredCampaignRow[],
  events: TriggerEvent[],
  entered: SegmentChange[],
) {
  const found: Candidate[] = [];
  for (const event of events) {
    for (const campaign of campaigns) {
      if (campaign.trigger_event_type !== event.type) continue;
      const where = campaign.trigger.where as MetadataCondition[] | undefined;
      if (where && !matchesMetadataConditions(where, event.metadata)) continue;
      found.push({ campaign, contactId: event.contactId, eventId: event.id });
    }
  }
  for (const change of entered) {
    for (const campaign of campaigns) {
      if (campaign.trigger_segment_id === change.segmentId) {
        found.push({ campaign, contactId: change.contactId, eventId: null });
      }
    }
  }
  return found;
}

/**
 * Enrollments for segment entries, with the active triggered campaigns already loaded (ingest
 * reads them with its definitions); campaigns whose trigger matches no entry are passed over.
 */
export async function enrollWithCampaigns(
  tx: Tx,
  workspaceId: string,
  campaigns: readonly TriggeredCampaignRow[],
  changes: SegmentChange[],
): Promise<void> {
  const proposed = proposeEnrollments(campaigns, [], changes);
  if (proposed.length === 0) return;
  await emitEnrollments(tx, workspaceId, proposed, await insertAllowedEnrollments(tx, workspaceId, proposed));
}

/**
 * The enrollments that active campaigns' triggers ask for (events first, in order, then segment
 * entries), before their reentry policies are applied by the insert.
 */
export function proposeEnrollments(
  campaigns: readonly TriggeredCampaignRow[],
  events: TriggerEvent[],
  changes: SegmentChange[],
): EnrollmentCandidate[] {
  const entered = changes.filter((change) => change.change === 'entered');
  if (campaigns.length === 0 || (events.length === 0 && entered.length === 0)) return [];
  return candidates(campaigns, events, entered).map((candidate) => ({
    id: newId('enrollment'),
    campaign_id: candidate.campaign.id,
    contact_id: candidate.contactId,
    trigger_event_id: candidate.eventId,
    reentry: candidate.campaign.reentry,
  }));
}

/**
 * campaign.contact.enrolled for each proposed enrollment that was inserted, in order, and the job
 * of its first step (one statement for all of them, in the inserting transaction).
 */
export async function emitEnrollments(
  tx: Tx,
  workspaceId: string,
  proposed: readonly EnrollmentCandidate[],
  inserted: ReadonlySet<string>,
): Promise<void> {
  const enrollments = proposed.filter((candidate) => inserted.has(candidate.id));
  await emitMany(
    tx,
    enrollments.map((row) => ({
      workspaceId,
      type: 'campaign.contact.enrolled' as const,
      data: { campaignId: row.campaign_id, contactId: row.contact_id },
    })),
  );
  await enqueueSteps(
    tx,
    enrollments.map((row) => ({ enrollmentId: row.id, stepKey: FIRST_STEP })),
  );
}

/** For segment entries outside ingest: contact writes, merges, segment recomputation. */
export async function enrollForSegmentChanges(tx: Tx, workspaceId: string, changes: SegmentChange[]) {
  const entered = changes.filter((change) => change.change === 'entered');
  if (entered.length === 0) return;
  const segmentIds = [...new Set(entered.map((change) => change.segmentId))];
  const campaigns = await findActiveTriggeredCampaigns(tx, workspaceId, [], segmentIds);
  await enrollWithCampaigns(tx, workspaceId, campaigns, changes);
}
