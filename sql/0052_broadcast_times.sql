-- When a broadcast started sending (its first page ran) and when it finished (every member enrolled
-- and none of its messages left queued or sending). broadcast_done_at (0018) stays the moment the
-- last member was enrolled.
alter table campaigns
  add column broadcast_started_at timestamptz,
  add column broadcast_finished_at timestamptz;
