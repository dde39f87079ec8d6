-- The message log filtered by a campaign (and a step of it), newest first, at a million messages.
-- messages_campaign_idx (0017) finds a campaign's messages but not in the log's order, and the
-- workspace's newest-first index finds them only by reading past every other message: a campaign
-- whose messages are all older than the newest ones (an archived one) read most of the workspace's
-- messages for its first page. Here the campaign's messages come in the log's order, and a step's
-- are those of its campaign read in that order (a step is a large share of its campaign's
-- messages, but for a rare branch).
create index messages_campaign_created_idx on messages (workspace_id, campaign_id, created_at desc, id desc)
  where campaign_id is not null;
