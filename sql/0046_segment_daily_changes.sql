-- Entries into and exits from each segment per day (UTC), for the console's 30-day sparklines and
-- the segment statistics operation. The outbox's segment.entered / segment.exited rows go after
-- RETENTION_WEBHOOK_DELIVERIES_MS and have no index by segment, so counting them would read every
-- outgoing event of a month; these counters are written as memberships change instead.
--
-- One row per segment, day and database backend: a backend runs one transaction at a time, so two
-- concurrent transactions never update the same row, and ingest never waits on another's counter.
-- A reader sums a day's rows (at most one per connection that changed the segment that day).
create table segment_daily_changes (
  workspace_id text not null,
  segment_id text not null,
  day date not null,
  backend integer not null,
  entered integer not null default 0,
  exited integer not null default 0,
  primary key (workspace_id, segment_id, day, backend),
  foreign key (workspace_id, segment_id) references segments (workspace_id, id) on delete cascade
);

-- Statement-level, over the rows the statement changed: one upsert per segment per statement,
-- whatever the number of contacts (a compute page of 5,000 entries is one row's update). Rows of a
-- segment being deleted (the cascade from segments or from a workspace) are not counted: the join
-- no longer finds the segment.
create function switchboard_count_segment_changes() returns trigger language plpgsql as $$
begin
  insert into segment_daily_changes as d (workspace_id, segment_id, day, backend, entered, exited)
  select m.workspace_id, m.segment_id, (now() at time zone 'UTC')::date, pg_backend_pid(),
    case when tg_op = 'INSERT' then count(*) else 0 end, case when tg_op = 'DELETE' then count(*) else 0 end
  from changed_rows m
  join segments s on s.workspace_id = m.workspace_id and s.id = m.segment_id
  group by m.workspace_id, m.segment_id
  on conflict (workspace_id, segment_id, day, backend)
    do update set entered = d.entered + excluded.entered, exited = d.exited + excluded.exited;
  return null;
end $$;

create trigger segment_memberships_count_entries after insert on segment_memberships
  referencing new table as changed_rows for each statement execute function switchboard_count_segment_changes();
create trigger segment_memberships_count_exits after delete on segment_memberships
  referencing old table as changed_rows for each statement execute function switchboard_count_segment_changes();
