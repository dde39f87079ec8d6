-- Reports over a period (src/campaigns/reportSeriesQueries.ts): each figure is read through a
-- range of an index by workspace and time that holds the columns the figure needs, so a 30-day
-- report over a million messages and their hits scans that range of the index, not the table.

-- Sent per bucket, for the workspace (a skip scan over its campaigns, the null one being
-- transactional messages) or one campaign; and a campaign's message ids, whose timeline entries
-- and hits its report counts.
create index messages_campaign_sent_idx on messages (workspace_id, campaign_id, sent_at) include (id);

-- The timeline entries a report counts (deliveries, first opens and clicks by a person, bounces,
-- complaints, unsubscribes), by type and when: each figure its own range, so the few complaints of
-- a period are not found among its many deliveries. The rest of the timeline is not reported.
create index message_events_report_idx on message_events (workspace_id, type, occurred_at) include (message_id)
  where type in ('delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed');

-- Machine and privacy-proxy hits by when, with what tells them apart.
create index message_hits_machine_idx on message_hits (workspace_id, occurred_at) include (message_id, kind, reasons)
  where not human;

-- Clicks by when, for the clicks per link (the url is read from the row: a long one does not fit an index).
create index message_hits_click_idx on message_hits (workspace_id, occurred_at) include (message_id, human, classified_at)
  where kind = 'click';

-- Conversions by when.
create index enrollments_converted_idx on enrollments (workspace_id, completed_at) include (campaign_id)
  where status = 'converted';
