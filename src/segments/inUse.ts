// The answer to deleting a segment that campaigns still name (trigger, audience or branch): each campaign, and
// what its status allows to let the segment go (draft → active ⇄ paused → archived).
import type { TriggeringCampaign } from './queries.ts';

/**
 * How a campaign in this status stops naming a segment: only a draft's definition can change, and only drafts and archived campaigns can be deleted (with their enrollments).
 */
function releaseSegmentTrigger(campaign: Pick<TriggeringCampaign, 'id' | 'status'>): string {
  const path = `…/campaigns/${campaign.id}`;
  if (campaign.status === 'draft')
    return `change what names it (PATCH ${path}) or delete it (DELETE ${path})`;
  if (campaign.status === 'archived') return `delete it (DELETE ${path}; its enrollment history goes too)`;
  return `archive it (POST ${path}/archive), then delete it (DELETE ${path})`;
}

/** Names each campaign that holds the segment, with what its status allows to let it go. */
export function segmentInUse(campaigns: readonly TriggeringCampaign[]): string {
  const named = campaigns.map(
    (campaign) =>
      `"${campaign.name}" (${campaign.id}, ${campaign.status}): ${releaseSegmentTrigger(campaign)}`,
  );
  const subject = campaigns.length === 1 ? 'A campaign is' : `${campaigns.length} campaigns are`;
  return `${subject} using this segment (trigger, broadcast audience or branch); delete the segment after freeing it. ${named.join('; ')}.`;
}
