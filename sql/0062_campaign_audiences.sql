-- A broadcast's audience counted in the background. Counting the audience of a million members takes
-- seconds (src/campaigns/audience.ts), too slow for a page or an API call: an audience of up to
-- CAMPAIGN_AUDIENCE_LIVE_LIMIT members is counted at every request, a larger one is served the last
-- count kept here, with its time, and counted again by the campaigns.audience job when it is missing,
-- out of date or asked for (src/campaigns/audienceStore.ts). One row per campaign.
create table campaign_audiences (
  workspace_id text not null,
  campaign_id text not null,
  -- The figures as GET …/campaigns/{id}/audience answers them; null until the first count ends.
  result jsonb,
  counted_at timestamptz,
  -- What the figures were counted for: the campaign's segment, send time and channel, the segment's
  -- version (its rules) and the workspace's pacing. A result whose basis differs from the campaign's
  -- now is served as stale.
  basis jsonb,
  -- When the count under way was queued; null when none is. Set and the job queued in one
  -- transaction, cleared by the job: at most one count per campaign at a time.
  counting_since timestamptz,
  primary key (workspace_id, campaign_id),
  foreign key (workspace_id, campaign_id) references campaigns (workspace_id, id) on delete cascade,
  check ((result is null) = (counted_at is null) and (result is null) = (basis is null))
);
