-- A campaign's active enrollments: each enrollment that ends asks whether its campaign has any left
-- (campaign.completed). Through enrollments_campaign_idx that walked every ended enrollment of the
-- campaign first, so a broadcast's last enrollments each read the whole campaign.
create index enrollments_active_campaign_idx on enrollments (campaign_id) where status = 'active';
