-- Events become a table partitioned by month of occurred_at (the time every events query filters
-- on: the list's `before`, segment windows), so that retention drops whole months instead of
-- deleting rows, and a time-filtered read skips the months it cannot need (partition pruning).
--
-- Partitions are named events_YYYY_MM (months in UTC). switchboard_ensure_event_partitions keeps
-- the current month and the next EVENT_PARTITIONS_AHEAD_MONTHS ready; `switchboard migrate` (right
-- after the migrations) and an hourly pg-boss schedule call it (src/events/partitions.ts). events_default takes any row no partition covers (a backfill
-- into a month that has none), so an insert never fails for want of a partition.
--
-- The primary key of a partitioned table must contain the partition key: (workspace_id, id,
-- occurred_at). Event ids stay unique because the service makes them (ULIDs); a lookup by id alone
-- visits every partition's index once. Nothing has ever referenced events by a foreign key
-- (enrollments.trigger_event_id, score_changes.event_id, messages.trigger_event_id and
-- event_idempotency_keys.event_id carry ids only; erasing a contact deletes its events and keeps its
-- idempotency keys so that a retry answers 409): the `drop table` below would refuse otherwise.
--
-- The existing rows are copied in this transaction (rename, create, copy, drop): right for the sizes
-- this service has run at. README "Events partitioned by time" says how a large installation
-- converts in batches instead.

-- Adds the partition of the month holding `month` (no-op when it exists; returns its name when
-- made). PostgreSQL refuses to attach a partition whose range has rows in the default partition, so
-- those rows move into the new table first; the default stays locked until the partition is
-- attached, so no row of that month can land in the default in between. The table is created
-- apart and then attached, which locks the parent only in SHARE UPDATE EXCLUSIVE mode (CREATE TABLE
-- … PARTITION OF would lock it exclusively): inserts into other months go on meanwhile.
create function switchboard_add_event_partition(month date) returns text
language plpgsql as $$
declare
  first_day date := date_trunc('month', month)::date;
  lower timestamptz := first_day::timestamp at time zone 'UTC';
  upper timestamptz := (first_day + interval '1 month')::timestamp at time zone 'UTC';
  name text := 'events_' || to_char(first_day, 'YYYY_MM');
begin
  if exists (select 1 from pg_inherits i join pg_class c on c.oid = i.inhrelid
             where i.inhparent = 'events'::regclass and c.relname = name) then
    return null;
  end if;
  lock table events_default in access exclusive mode;
  execute format('create table %I (like events including defaults including constraints)', name);
  execute format('alter table %I set (autovacuum_analyze_scale_factor = 0.02)', name);
  execute format('with moved as (delete from events_default where occurred_at >= $1 and occurred_at < $2 '
                 'returning *) insert into %I select * from moved', name) using lower, upper;
  execute format('alter table events attach partition %I for values from (%L) to (%L)', name, lower, upper);
  return name;
end $$;

-- Partitions for this month and the `ahead` next ones, and for every month that has rows in the
-- default partition (they move out of it). Returns the partitions made.
create function switchboard_ensure_event_partitions(ahead integer) returns setof text
language plpgsql as $$
declare
  month date;
  made text;
begin
  for month in
    select (date_trunc('month', now() at time zone 'UTC') + n * interval '1 month')::date
    from generate_series(0, ahead) as n
    union
    select distinct date_trunc('month', occurred_at at time zone 'UTC')::date from events_default
    order by 1
  loop
    made := switchboard_add_event_partition(month);
    if made is not null then
      return next made;
    end if;
  end loop;
end $$;

-- Retention: drops every monthly partition that ended before `cutoff` and deletes the default
-- partition's rows older than it. A month is dropped only once all of it is past the cutoff, so
-- events are kept at least as long as asked. Returns the partitions dropped.
create function switchboard_drop_event_partitions(cutoff timestamptz) returns setof text
language plpgsql as $$
declare
  name text;
begin
  for name in
    select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'events'::regclass and c.relname ~ '^events_\d{4}_\d{2}$'
      and (to_date(substr(c.relname, 8), 'YYYY_MM') + interval '1 month')::timestamp at time zone 'UTC' <= cutoff
    order by c.relname
  loop
    execute format('drop table %I', name);
    return next name;
  end loop;
  delete from events_default where occurred_at < cutoff;
end $$;

-- An installation that converted its events beforehand, in batches (README), has nothing to convert.
do $$
begin
if (select relkind from pg_class where oid = 'events'::regclass) = 'p' then
  return;
end if;
  alter table events rename to events_unpartitioned;
  alter index events_pkey rename to events_unpartitioned_pkey;
  alter index events_workspace_time_idx rename to events_unpartitioned_workspace_time_idx;
  alter index events_workspace_type_time_idx rename to events_unpartitioned_workspace_type_time_idx;
  alter index events_contact_type_time_idx rename to events_unpartitioned_contact_type_time_idx;

  create table events (
    workspace_id text not null,
    id text not null,
    contact_id text,
    type text not null check (char_length(type) between 1 and 200),
    metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
    session_id text,
    page_url text,
    referrer text,
    utm_source text,
    utm_medium text,
    utm_campaign text,
    occurred_at timestamptz not null default now(), -- the event's `timestamp` (past only, for backfills)
    received_at timestamptz not null default now(),
    source text not null default 'api' check (source in ('api', 'batch', 'webhook', 'system')),
    primary key (workspace_id, id, occurred_at),
    -- Merges move events first and erasure deletes them first; the key catches anything else.
    constraint events_contact_id_fkey foreign key (workspace_id, contact_id)
      references contacts (workspace_id, id) on delete set null (contact_id)
  ) partition by range (occurred_at);
  create index events_workspace_time_idx on events (workspace_id, occurred_at desc, id desc);
  create index events_workspace_type_time_idx on events (workspace_id, type, occurred_at desc);
  -- A contact's events of a type: segment and scoring conditions. Led by workspace_id so that the
  -- workspace test those conditions carry never makes the index above look as selective.
  create index events_contact_type_time_idx on events (workspace_id, contact_id, type, occurred_at desc);

  create table events_default partition of events default;
  alter table events_default set (autovacuum_analyze_scale_factor = 0.02);

  -- Every month that has events, and this one; `switchboard migrate` then makes the months ahead
  -- (EVENT_PARTITIONS_AHEAD_MONTHS).
  perform switchboard_add_event_partition(month)
  from (
    select distinct date_trunc('month', occurred_at at time zone 'UTC')::date as month from events_unpartitioned
    union
    select date_trunc('month', now() at time zone 'UTC')::date
  ) as months
  order by month;

  insert into events (workspace_id, id, contact_id, type, metadata, session_id, page_url, referrer, utm_source,
                      utm_medium, utm_campaign, occurred_at, received_at, source)
  select workspace_id, id, contact_id, type, metadata, session_id, page_url, referrer, utm_source,
         utm_medium, utm_campaign, occurred_at, received_at, source
  from events_unpartitioned;

  drop table events_unpartitioned;
end $$;

analyze events;
