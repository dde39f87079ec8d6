-- The scheduled refresh of time-window segments runs in pages under a per-workspace budget, so a
-- pass over a large workspace may span several runs: this is where the pass stopped (the last
-- contact evaluated, `{"createdAt": …, "id": …}` in the contacts' (created_at, id) order); null when
-- the next run starts a new pass.
alter table segments add column refresh_cursor jsonb;
