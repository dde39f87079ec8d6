-- A broadcast's finish is stamped by the worker now (campaigns.broadcastFinish), no longer when the
-- campaign is read: those enrolled in full whose messages have all settled are stamped here, with
-- the moment their last message settled; the worker's minute sweep takes those still sending.
update campaigns c set broadcast_finished_at = greatest(c.broadcast_done_at,
    (select max(m.updated_at) from messages m where m.workspace_id = c.workspace_id and m.campaign_id = c.id))
where c.broadcast_done_at is not null and c.broadcast_finished_at is null
  and not exists (select 1 from messages m where m.workspace_id = c.workspace_id and m.campaign_id = c.id
    and m.status in ('queued', 'sending'));

-- The broadcasts not yet stamped, found by the sweep without reading every campaign.
create index campaigns_broadcast_unfinished_idx on campaigns (broadcast_done_at)
  where broadcast_done_at is not null and broadcast_finished_at is null;
