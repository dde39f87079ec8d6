-- A campaign's figures, kept as its messages, their timeline and their hits change. The campaigns
-- list's 30-day sparklines and a campaign's report counted them from the messages (875,000 sent in
-- 30 days at a million messages) and their hits (810,000): 14.6 and 15.9 s, over the statement
-- timeout. Here they are counters, written as segment_daily_changes (0046) and
-- segment_member_counts (0057) are: statement triggers over the rows a statement changed add what
-- it changed, in its transaction (a reader's sum is exact in its snapshot), one row per counter and
-- database backend (a backend runs one transaction at a time: two writers never update the same
-- row, so none waits on another's counter). A reader sums a campaign's rows.
--
-- What each counter counts is what src/campaigns/report.ts and consoleQueries.ts counted:
--   queued (queued or sending), sent, failed, bounced, suppressed: the messages in that status now;
--   delivered, unsubscribes: the messages whose timeline holds a 'delivered' / 'unsubscribed' entry;
--   unique_opens, unique_clicks: the messages with a hit of that kind the worker settled as a person's;
--   machine_opens, machine_clicks (click and honeypot), proxy_opens: hits that are not a person's,
--     apart by the privacy-proxy reason 'mail_proxy' (messages' PROXY_REASON), each hit once.
-- Per day (UTC): the messages sent that day (by sent_at, whatever their status now), and the
-- messages a person opened / clicked that day (a message opened on two days counts on both).
-- Messages without a step count under step_key '' (a key is never empty).
create table campaign_step_counts (
  workspace_id text not null,
  campaign_id text not null,
  step_key text not null,
  backend integer not null,
  queued bigint not null default 0,
  sent bigint not null default 0,
  failed bigint not null default 0,
  bounced bigint not null default 0,
  suppressed bigint not null default 0,
  delivered bigint not null default 0,
  unsubscribes bigint not null default 0,
  unique_opens bigint not null default 0,
  unique_clicks bigint not null default 0,
  machine_opens bigint not null default 0,
  machine_clicks bigint not null default 0,
  proxy_opens bigint not null default 0,
  primary key (workspace_id, campaign_id, step_key, backend),
  foreign key (workspace_id, campaign_id) references campaigns (workspace_id, id) on delete cascade
);

create table campaign_daily_counts (
  workspace_id text not null,
  campaign_id text not null,
  day date not null,
  backend integer not null,
  sent bigint not null default 0,
  opens bigint not null default 0,
  clicks bigint not null default 0,
  primary key (workspace_id, campaign_id, day, backend),
  foreign key (workspace_id, campaign_id) references campaigns (workspace_id, id) on delete cascade
);

-- The rows a statement changed, as (new state, +1) and (old state, -1): the same counting serves
-- inserts (no old rows), updates and deletes (no new rows). Run with EXECUTE because a trigger has
-- only the transition tables of its event to name; the statement is planned on each run (a
-- fraction of a millisecond).
create function switchboard_changed_rows(op text) returns text language sql immutable as $$
  select case op when 'INSERT' then 'select *, 1 as sign from new_rows'
    when 'DELETE' then 'select *, -1 as sign from old_rows'
    else 'select *, 1 as sign from new_rows union all select *, -1 from old_rows' end
$$;

-- Messages inserted or updated: each changed row adds its new state and takes away its old one, so
-- an update that changes neither status nor send time (a lease, an attempt) writes nothing (and is
-- told apart first, by a cached plan). Rows of a campaign being deleted are not counted (the join no
-- longer finds it).
create function switchboard_count_campaign_messages() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' then
    if not exists (
      select 1 from new_rows n join old_rows o on o.id = n.id
      where (n.status, n.sent_at, n.campaign_id, n.step_key) is distinct from (o.status, o.sent_at, o.campaign_id, o.step_key)
    ) then
      return null;
    end if;
  end if;
  execute format($sql$
    insert into campaign_step_counts as c (workspace_id, campaign_id, step_key, backend,
      queued, sent, failed, bounced, suppressed)
    select * from (
      select m.workspace_id, m.campaign_id, coalesce(m.step_key, ''), pg_backend_pid(),
        coalesce(sum(m.sign) filter (where m.status in ('queued', 'sending')), 0) as queued,
        coalesce(sum(m.sign) filter (where m.status = 'sent'), 0) as sent,
        coalesce(sum(m.sign) filter (where m.status = 'failed'), 0) as failed,
        coalesce(sum(m.sign) filter (where m.status = 'bounced'), 0) as bounced,
        coalesce(sum(m.sign) filter (where m.status = 'suppressed'), 0) as suppressed
      from (%s) m
      join campaigns k on k.workspace_id = m.workspace_id and k.id = m.campaign_id
      group by m.workspace_id, m.campaign_id, coalesce(m.step_key, '')
    ) delta
    where queued <> 0 or sent <> 0 or failed <> 0 or bounced <> 0 or suppressed <> 0
    on conflict (workspace_id, campaign_id, step_key, backend) do update set
      queued = c.queued + excluded.queued, sent = c.sent + excluded.sent, failed = c.failed + excluded.failed,
      bounced = c.bounced + excluded.bounced, suppressed = c.suppressed + excluded.suppressed
  $sql$, switchboard_changed_rows(tg_op));
  execute format($sql$
    insert into campaign_daily_counts as d (workspace_id, campaign_id, day, backend, sent)
    select m.workspace_id, m.campaign_id, (m.sent_at at time zone 'UTC')::date, pg_backend_pid(), sum(m.sign)
    from (%s) m
    join campaigns k on k.workspace_id = m.workspace_id and k.id = m.campaign_id
    where m.sent_at is not null
    group by m.workspace_id, m.campaign_id, (m.sent_at at time zone 'UTC')::date
    having sum(m.sign) <> 0
    on conflict (workspace_id, campaign_id, day, backend) do update set sent = d.sent + excluded.sent
  $sql$, switchboard_changed_rows(tg_op));
  return null;
end $$;

create trigger messages_count_campaign_inserts after insert on messages
  referencing new table as new_rows for each statement execute function switchboard_count_campaign_messages();
create trigger messages_count_campaign_updates after update on messages
  referencing old table as old_rows new table as new_rows
  for each statement execute function switchboard_count_campaign_messages();

-- Timeline entries: a message counts as delivered (unsubscribed) from its first such entry. The
-- entries of the statement are told from the ones before by id. Two transactions recording a
-- message's first 'delivered' at the same instant would both count it (neither sees the other's):
-- providers report a delivery once, and the unsubscribe page records one per request.
create function switchboard_count_campaign_events() returns trigger language plpgsql as $$
begin
  insert into campaign_step_counts as c (workspace_id, campaign_id, step_key, backend, delivered, unsubscribes)
  select m.workspace_id, m.campaign_id, coalesce(m.step_key, ''), pg_backend_pid(),
    count(*) filter (where f.type = 'delivered'), count(*) filter (where f.type = 'unsubscribed')
  from (
    select distinct n.message_id, n.type from new_rows n
    where n.type in ('delivered', 'unsubscribed') and not exists (
      select 1 from message_events e where e.message_id = n.message_id and e.type = n.type
        and e.id < (select min(x.id) from new_rows x where x.message_id = n.message_id and x.type = n.type))
  ) f
  join messages m on m.id = f.message_id
  join campaigns k on k.workspace_id = m.workspace_id and k.id = m.campaign_id
  group by m.workspace_id, m.campaign_id, coalesce(m.step_key, '')
  on conflict (workspace_id, campaign_id, step_key, backend) do update set
    delivered = c.delivered + excluded.delivered, unsubscribes = c.unsubscribes + excluded.unsubscribes;
  return null;
end $$;

create trigger message_events_count_campaign after insert on message_events
  referencing new table as new_rows for each statement execute function switchboard_count_campaign_events();

-- Hits inserted (machine and proxy hits count at once), classified by the worker (a person's
-- opens and clicks count once settled) or pruned. Machine and proxy hits count each hit: new state in, old
-- out. A person's open (click) counts its message once, and once per UTC day for the list: per
-- (message, kind, day) the statement changed, the settled human hits there now are counted in the
-- table (one index range), and the state before is those minus the statement's new rows plus its
-- old ones. Hits are only ever written by one classifying run at a time (the job is stately).
create function switchboard_count_campaign_hits() returns trigger language plpgsql as $$
begin
  execute format($sql$
    insert into campaign_step_counts as c (workspace_id, campaign_id, step_key, backend,
      machine_opens, machine_clicks, proxy_opens)
    select * from (
      select m.workspace_id, m.campaign_id, coalesce(m.step_key, ''), pg_backend_pid(),
        coalesce(sum(h.sign) filter (where h.kind = 'open' and not h.proxy), 0) as machine_opens,
        coalesce(sum(h.sign) filter (where h.kind in ('click', 'honeypot') and not h.proxy), 0) as machine_clicks,
        coalesce(sum(h.sign) filter (where h.kind = 'open' and h.proxy), 0) as proxy_opens
      from (select message_id, kind, sign, coalesce('mail_proxy' = any(reasons), false) as proxy
        from (%s) changed where not human) h
      join messages m on m.id = h.message_id
      join campaigns k on k.workspace_id = m.workspace_id and k.id = m.campaign_id
      group by m.workspace_id, m.campaign_id, coalesce(m.step_key, '')
    ) delta
    where machine_opens <> 0 or machine_clicks <> 0 or proxy_opens <> 0
    on conflict (workspace_id, campaign_id, step_key, backend) do update set
      machine_opens = c.machine_opens + excluded.machine_opens,
      machine_clicks = c.machine_clicks + excluded.machine_clicks, proxy_opens = c.proxy_opens + excluded.proxy_opens
  $sql$, switchboard_changed_rows(tg_op));
  execute format($sql$
    with changed as (
      select message_id, kind, (occurred_at at time zone 'UTC')::date as day,
        count(*) filter (where sign > 0) as day_new, count(*) filter (where sign < 0) as day_old
      from (%s) changed
      where kind in ('open', 'click') and human and classified_at is not null
      group by 1, 2, 3
    ), counted as (
      select c.*, m.workspace_id, m.campaign_id, coalesce(m.step_key, '') as step_key, (
        select count(*) from message_hits h
        where h.workspace_id = m.workspace_id and h.message_id = c.message_id and h.kind = c.kind
          and h.human and h.classified_at is not null
          and h.occurred_at >= c.day::timestamp at time zone 'UTC'
          and h.occurred_at < (c.day + 1)::timestamp at time zone 'UTC') as day_now
      from changed c
      join messages m on m.id = c.message_id
      join campaigns k on k.workspace_id = m.workspace_id and k.id = m.campaign_id
    ), per_message as (
      select x.workspace_id, x.campaign_id, x.step_key, x.message_id, x.kind,
        sum(x.day_new) as ever_new, sum(x.day_old) as ever_old, (
          select count(*) from message_hits h
          where h.workspace_id = x.workspace_id and h.message_id = x.message_id and h.kind = x.kind
            and h.human and h.classified_at is not null) as ever_now
      from counted x
      group by x.workspace_id, x.campaign_id, x.step_key, x.message_id, x.kind
    ), daily as (
      insert into campaign_daily_counts as d (workspace_id, campaign_id, day, backend, opens, clicks)
      select * from (
        select workspace_id, campaign_id, day, pg_backend_pid(),
          coalesce(sum(delta) filter (where kind = 'open'), 0) as opens,
          coalesce(sum(delta) filter (where kind = 'click'), 0) as clicks
        from (select *, (day_now > 0)::int - (day_now - day_new + day_old > 0)::int as delta from counted) t
        group by workspace_id, campaign_id, day
      ) delta
      where opens <> 0 or clicks <> 0
      on conflict (workspace_id, campaign_id, day, backend) do update set
        opens = d.opens + excluded.opens, clicks = d.clicks + excluded.clicks
    )
    insert into campaign_step_counts as c (workspace_id, campaign_id, step_key, backend, unique_opens, unique_clicks)
    select * from (
      select workspace_id, campaign_id, step_key, pg_backend_pid(),
        coalesce(sum(delta) filter (where kind = 'open'), 0) as unique_opens,
        coalesce(sum(delta) filter (where kind = 'click'), 0) as unique_clicks
      from (select *, (ever_now > 0)::int - (ever_now - ever_new + ever_old > 0)::int as delta from per_message) t
      group by workspace_id, campaign_id, step_key
    ) delta
    where unique_opens <> 0 or unique_clicks <> 0
    on conflict (workspace_id, campaign_id, step_key, backend) do update set
      unique_opens = c.unique_opens + excluded.unique_opens, unique_clicks = c.unique_clicks + excluded.unique_clicks
  $sql$, switchboard_changed_rows(tg_op));
  return null;
end $$;

create trigger message_hits_count_campaign_inserts after insert on message_hits
  referencing new table as new_rows for each statement execute function switchboard_count_campaign_hits();
create trigger message_hits_count_campaign_updates after update on message_hits
  referencing old table as old_rows new table as new_rows
  for each statement execute function switchboard_count_campaign_hits();
-- Hits pruned by retention (RETENTION_TRACKING_HITS_MS) no longer count, as when they were counted
-- from the rows. The hits of a deleted message (the cascade) are past their message: the join finds
-- none, and the message took their counts away itself (below).
create trigger message_hits_count_campaign_deletes after delete on message_hits
  referencing old table as old_rows for each statement execute function switchboard_count_campaign_hits();

-- A message deleted (erased with its contact) takes away all it counted, before its timeline and
-- hits go with it (their cascade runs after the row is gone, when they can no longer be told to a
-- campaign). Row-level: messages are deleted one contact's at a time. A campaign being deleted
-- takes its counters with it, so its messages have nothing to take away.
create function switchboard_uncount_campaign_message() returns trigger language plpgsql as $$
begin
  if old.campaign_id is null
    or not exists (select 1 from campaigns where workspace_id = old.workspace_id and id = old.campaign_id) then
    return old;
  end if;
  insert into campaign_step_counts as c (workspace_id, campaign_id, step_key, backend, queued, sent, failed,
    bounced, suppressed, delivered, unsubscribes, unique_opens, unique_clicks, machine_opens, machine_clicks, proxy_opens)
  select old.workspace_id, old.campaign_id, coalesce(old.step_key, ''), pg_backend_pid(),
    -(old.status in ('queued', 'sending'))::int, -(old.status = 'sent')::int, -(old.status = 'failed')::int,
    -(old.status = 'bounced')::int, -(old.status = 'suppressed')::int,
    -coalesce(bool_or(e.type = 'delivered'), false)::int, -coalesce(bool_or(e.type = 'unsubscribed'), false)::int,
    -h.unique_opens, -h.unique_clicks, -h.machine_opens, -h.machine_clicks, -h.proxy_opens
  from (
    select coalesce(bool_or(kind = 'open' and human and classified_at is not null), false)::int as unique_opens,
      coalesce(bool_or(kind = 'click' and human and classified_at is not null), false)::int as unique_clicks,
      count(*) filter (where kind = 'open' and not human and not 'mail_proxy' = any(reasons)) as machine_opens,
      count(*) filter (where kind in ('click', 'honeypot') and not human and not 'mail_proxy' = any(reasons)) as machine_clicks,
      count(*) filter (where kind = 'open' and not human and 'mail_proxy' = any(reasons)) as proxy_opens
    from message_hits where workspace_id = old.workspace_id and message_id = old.id
  ) h
  left join message_events e on e.message_id = old.id and e.type in ('delivered', 'unsubscribed')
  group by h.unique_opens, h.unique_clicks, h.machine_opens, h.machine_clicks, h.proxy_opens
  on conflict (workspace_id, campaign_id, step_key, backend) do update set
    queued = c.queued + excluded.queued, sent = c.sent + excluded.sent, failed = c.failed + excluded.failed,
    bounced = c.bounced + excluded.bounced, suppressed = c.suppressed + excluded.suppressed,
    delivered = c.delivered + excluded.delivered, unsubscribes = c.unsubscribes + excluded.unsubscribes,
    unique_opens = c.unique_opens + excluded.unique_opens, unique_clicks = c.unique_clicks + excluded.unique_clicks,
    machine_opens = c.machine_opens + excluded.machine_opens,
    machine_clicks = c.machine_clicks + excluded.machine_clicks, proxy_opens = c.proxy_opens + excluded.proxy_opens;
  insert into campaign_daily_counts as d (workspace_id, campaign_id, day, backend, sent, opens, clicks)
  select old.workspace_id, old.campaign_id, day, pg_backend_pid(), -sum(sent), -sum(opens), -sum(clicks)
  from (
    select (old.sent_at at time zone 'UTC')::date as day, 1 as sent, 0 as opens, 0 as clicks
    where old.sent_at is not null
    union all
    select (occurred_at at time zone 'UTC')::date, 0, bool_or(kind = 'open')::int, bool_or(kind = 'click')::int
    from message_hits
    where workspace_id = old.workspace_id and message_id = old.id
      and kind in ('open', 'click') and human and classified_at is not null
    group by 1
  ) figures
  group by day
  on conflict (workspace_id, campaign_id, day, backend) do update set
    sent = d.sent + excluded.sent, opens = d.opens + excluded.opens, clicks = d.clicks + excluded.clicks;
  return old;
end $$;

create trigger messages_uncount_campaign before delete on messages
  for each row execute function switchboard_uncount_campaign_message();

-- What is there already, under backend 0 (no backend has that id), while writers wait: the copy
-- and the triggers are committed together.
lock table messages, message_events, message_hits in share row exclusive mode;

insert into campaign_step_counts (workspace_id, campaign_id, step_key, backend, queued, sent, failed,
  bounced, suppressed, delivered, unsubscribes, unique_opens, unique_clicks, machine_opens, machine_clicks, proxy_opens)
select m.workspace_id, m.campaign_id, coalesce(m.step_key, ''), 0,
  count(*) filter (where m.status in ('queued', 'sending')), count(*) filter (where m.status = 'sent'),
  count(*) filter (where m.status = 'failed'), count(*) filter (where m.status = 'bounced'),
  count(*) filter (where m.status = 'suppressed'),
  count(*) filter (where e.delivered), count(*) filter (where e.unsubscribed),
  count(*) filter (where h.unique_opens), count(*) filter (where h.unique_clicks),
  coalesce(sum(h.machine_opens), 0), coalesce(sum(h.machine_clicks), 0), coalesce(sum(h.proxy_opens), 0)
from messages m
join campaigns k on k.workspace_id = m.workspace_id and k.id = m.campaign_id
left join (
  select message_id, bool_or(type = 'delivered') as delivered, bool_or(type = 'unsubscribed') as unsubscribed
  from message_events where type in ('delivered', 'unsubscribed') group by message_id
) e on e.message_id = m.id
left join (
  select message_id, bool_or(kind = 'open' and human and classified_at is not null) as unique_opens,
    bool_or(kind = 'click' and human and classified_at is not null) as unique_clicks,
    count(*) filter (where kind = 'open' and not human and not 'mail_proxy' = any(reasons)) as machine_opens,
    count(*) filter (where kind in ('click', 'honeypot') and not human and not 'mail_proxy' = any(reasons)) as machine_clicks,
    count(*) filter (where kind = 'open' and not human and 'mail_proxy' = any(reasons)) as proxy_opens
  from message_hits group by message_id
) h on h.message_id = m.id
group by m.workspace_id, m.campaign_id, coalesce(m.step_key, '');

insert into campaign_daily_counts (workspace_id, campaign_id, day, backend, sent, opens, clicks)
select workspace_id, campaign_id, day, 0, sum(sent), sum(opens), sum(clicks)
from (
  select m.workspace_id, m.campaign_id, (m.sent_at at time zone 'UTC')::date as day, count(*) as sent,
    0 as opens, 0 as clicks
  from messages m
  join campaigns k on k.workspace_id = m.workspace_id and k.id = m.campaign_id
  where m.sent_at is not null
  group by 1, 2, 3
  union all
  select m.workspace_id, m.campaign_id, d.day, 0, count(*) filter (where d.opened), count(*) filter (where d.clicked)
  from (
    select message_id, (occurred_at at time zone 'UTC')::date as day, bool_or(kind = 'open') as opened,
      bool_or(kind = 'click') as clicked
    from message_hits where kind in ('open', 'click') and human and classified_at is not null
    group by 1, 2
  ) d
  join messages m on m.id = d.message_id
  join campaigns k on k.workspace_id = m.workspace_id and k.id = m.campaign_id
  group by 1, 2, 3
) figures
group by workspace_id, campaign_id, day;

-- The enrollments by status, and the active ones per step (the flow's "waiting"), kept the same way:
-- counting them took a scan of the campaign's enrollments (500,000 at a million messages), 105-205
-- ms, for the list and again for a campaign's page. step_key '' holds enrollments with no step.
create table campaign_enrollment_counts (
  workspace_id text not null,
  campaign_id text not null,
  step_key text not null,
  backend integer not null,
  enrolled bigint not null default 0,
  active bigint not null default 0,
  completed bigint not null default 0,
  converted bigint not null default 0,
  exited bigint not null default 0,
  primary key (workspace_id, campaign_id, step_key, backend),
  foreign key (workspace_id, campaign_id) references campaigns (workspace_id, id) on delete cascade
);

-- Enrollments inserted, updated (an update that moves neither status nor step writes nothing) or
-- deleted (erased with their contact; a campaign's go with its counters).
create function switchboard_count_campaign_enrollments() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' then
    if not exists (
      select 1 from new_rows n join old_rows o on o.workspace_id = n.workspace_id and o.id = n.id
      where (n.status, n.step_key, n.campaign_id) is distinct from (o.status, o.step_key, o.campaign_id)
    ) then
      return null;
    end if;
  end if;
  execute format($sql$
    insert into campaign_enrollment_counts as c (workspace_id, campaign_id, step_key, backend,
      enrolled, active, completed, converted, exited)
    select * from (
      select e.workspace_id, e.campaign_id, coalesce(e.step_key, ''), pg_backend_pid(), sum(e.sign) as enrolled,
        coalesce(sum(e.sign) filter (where e.status = 'active'), 0) as active,
        coalesce(sum(e.sign) filter (where e.status = 'completed'), 0) as completed,
        coalesce(sum(e.sign) filter (where e.status = 'converted'), 0) as converted,
        coalesce(sum(e.sign) filter (where e.status = 'exited'), 0) as exited
      from (%s) e
      join campaigns k on k.workspace_id = e.workspace_id and k.id = e.campaign_id
      group by e.workspace_id, e.campaign_id, coalesce(e.step_key, '')
    ) delta
    where enrolled <> 0 or active <> 0 or completed <> 0 or converted <> 0 or exited <> 0
    on conflict (workspace_id, campaign_id, step_key, backend) do update set
      enrolled = c.enrolled + excluded.enrolled, active = c.active + excluded.active,
      completed = c.completed + excluded.completed, converted = c.converted + excluded.converted,
      exited = c.exited + excluded.exited
  $sql$, switchboard_changed_rows(tg_op));
  return null;
end $$;

create trigger enrollments_count_campaign_inserts after insert on enrollments
  referencing new table as new_rows for each statement execute function switchboard_count_campaign_enrollments();
create trigger enrollments_count_campaign_updates after update on enrollments
  referencing old table as old_rows new table as new_rows
  for each statement execute function switchboard_count_campaign_enrollments();
create trigger enrollments_count_campaign_deletes after delete on enrollments
  referencing old table as old_rows for each statement execute function switchboard_count_campaign_enrollments();

lock table enrollments in share row exclusive mode;

insert into campaign_enrollment_counts (workspace_id, campaign_id, step_key, backend,
  enrolled, active, completed, converted, exited)
select e.workspace_id, e.campaign_id, coalesce(e.step_key, ''), 0, count(*),
  count(*) filter (where e.status = 'active'), count(*) filter (where e.status = 'completed'),
  count(*) filter (where e.status = 'converted'), count(*) filter (where e.status = 'exited')
from enrollments e
join campaigns k on k.workspace_id = e.workspace_id and k.id = e.campaign_id
group by e.workspace_id, e.campaign_id, coalesce(e.step_key, '');

-- The split paths drawn stay counted from the enrollments that drew one (none for a campaign
-- without a split step): at 500,000 enrollments that was a scan of the table, 111 ms.
create index enrollments_cohorts_idx on enrollments (workspace_id, campaign_id) where cohorts <> '{}';
