-- 1. The message log filtered by a campaign (and a step of it), newest first, at a million messages.
-- messages_campaign_idx (0017) finds a campaign's messages but not in the log's order, and the
-- workspace's newest-first index finds them only by reading past every other message: a campaign
-- whose messages are all older than the newest ones (an archived one) read most of the workspace's
-- messages for its first page. Here the campaign's messages come in the log's order, and a step's
-- are those of its campaign read in that order (a step is a large share of its campaign's
-- messages, but for a rare branch).
create index messages_campaign_created_idx on messages (workspace_id, campaign_id, created_at desc, id desc)
  where campaign_id is not null;

-- 2. Each segment's member count, kept as memberships change. Counting the members took 157-185 ms at
-- 527,000 (an index-only scan), on every segment page and for every segment of the list. The
-- memberships' statement triggers of 0046 now also add what each statement changed here, one row
-- per segment and database backend as there (a backend runs one transaction at a time: ingest never
-- waits on another's counter), in the transaction that changed them: a reader's sum is exact in its
-- snapshot. Rows of a segment being deleted are not counted (the join no longer finds it).
create table segment_member_counts (
  workspace_id text not null,
  segment_id text not null,
  backend integer not null,
  members bigint not null,
  primary key (workspace_id, segment_id, backend),
  foreign key (workspace_id, segment_id) references segments (workspace_id, id) on delete cascade
);

-- Writers wait until the copy below and the new trigger function are committed together.
lock table segment_memberships in share row exclusive mode;

create or replace function switchboard_count_segment_changes() returns trigger language plpgsql as $$
begin
  insert into segment_daily_changes as d (workspace_id, segment_id, day, backend, entered, exited)
  select m.workspace_id, m.segment_id, (now() at time zone 'UTC')::date, pg_backend_pid(),
    case when tg_op = 'INSERT' then count(*) else 0 end, case when tg_op = 'DELETE' then count(*) else 0 end
  from changed_rows m
  join segments s on s.workspace_id = m.workspace_id and s.id = m.segment_id
  group by m.workspace_id, m.segment_id
  on conflict (workspace_id, segment_id, day, backend)
    do update set entered = d.entered + excluded.entered, exited = d.exited + excluded.exited;
  insert into segment_member_counts as c (workspace_id, segment_id, backend, members)
  select m.workspace_id, m.segment_id, pg_backend_pid(),
    case when tg_op = 'INSERT' then count(*) else -count(*) end
  from changed_rows m
  join segments s on s.workspace_id = m.workspace_id and s.id = m.segment_id
  group by m.workspace_id, m.segment_id
  on conflict (workspace_id, segment_id, backend) do update set members = c.members + excluded.members;
  return null;
end $$;

-- The members there already, under backend 0 (no backend has that id).
insert into segment_member_counts (workspace_id, segment_id, backend, members)
select workspace_id, segment_id, 0, count(*) from segment_memberships group by workspace_id, segment_id;
