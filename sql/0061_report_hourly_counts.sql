-- A report over a period (src/campaigns/reportSeries.ts: a campaign's or the workspace's, 24 hours
-- to a year, per UTC hour or day) counted its figures from the messages, their timeline and their
-- hits in the period: a 30-day workspace report at a million messages read 0.8-1.0 s of rows. Here
-- they are counters per UTC hour, kept as 0060's are (statement triggers adding what a statement
-- changed, one row per counter and database backend, so no writer waits on another's counter); a
-- day bucket sums its hours. A reader's cost depends on the hours of the period, not the messages.
--
-- Two scopes: a campaign's hours, and the workspace's, which count every message, those of no
-- campaign (transactional sends) and those of a deleted campaign too (messages have no key to their
-- campaign and outlive it, 0017), as the report counted them from the rows.
--
-- What each figure counts is what the queries counted:
--   sent: the messages by sent_at, whatever their status now;
--   delivered, human_opens: each 'delivered' / 'opened' timeline entry (written once per message);
--   machine_opens, proxy_opens, machine_clicks: each hit that is not a person's (an open, apart by
--     the privacy-proxy reason 'mail_proxy'; a click or honeypot hit), settled or not;
--   conversions: the enrollments converted, by completed_at;
--   human_clicks, complaints, unsubscribes, hard_bounces, soft_bounces: each message once per figure
--     in the period, at its first entry of the period ('bounced' with bounceType 'soft' is soft, any
--     other bounce hard). A message clicked on two days counts in a period holding both once (the
--     first day), and in a period holding only the second on the second. So such an entry is kept
--     with the hour of the message's previous entry of the figure (`previous`; '-infinity' for a
--     first entry and for the figures that count each row), and a period from F counts the entries
--     in it whose previous one is before F: each message's first entry in the period, exactly once
--     (F is the start of an hour, so comparing hours is comparing instants). An entry in the same
--     hour as its previous one never counts (its previous one is in any period it is in): not kept.
create table campaign_hourly_counts (
  workspace_id text not null,
  campaign_id text not null,
  hour timestamptz not null,
  previous timestamptz not null,
  backend integer not null,
  sent bigint not null default 0,
  delivered bigint not null default 0,
  human_opens bigint not null default 0,
  machine_opens bigint not null default 0,
  proxy_opens bigint not null default 0,
  human_clicks bigint not null default 0,
  machine_clicks bigint not null default 0,
  hard_bounces bigint not null default 0,
  soft_bounces bigint not null default 0,
  complaints bigint not null default 0,
  unsubscribes bigint not null default 0,
  conversions bigint not null default 0,
  primary key (workspace_id, campaign_id, hour, previous, backend),
  foreign key (workspace_id, campaign_id) references campaigns (workspace_id, id) on delete cascade
);

create table workspace_hourly_counts (
  workspace_id text not null references workspaces (id) on delete cascade,
  hour timestamptz not null,
  previous timestamptz not null,
  backend integer not null,
  sent bigint not null default 0,
  delivered bigint not null default 0,
  human_opens bigint not null default 0,
  machine_opens bigint not null default 0,
  proxy_opens bigint not null default 0,
  human_clicks bigint not null default 0,
  machine_clicks bigint not null default 0,
  hard_bounces bigint not null default 0,
  soft_bounces bigint not null default 0,
  complaints bigint not null default 0,
  unsubscribes bigint not null default 0,
  conversions bigint not null default 0,
  primary key (workspace_id, hour, previous, backend)
);

-- The UTC hour holding an instant (the report's buckets: date_bin from a UTC midnight).
create function switchboard_hour(instant timestamptz) returns timestamptz language sql immutable parallel safe as $$
  select date_bin('1 hour', instant, '2000-01-01T00:00:00Z'::timestamptz)
$$;

-- One change to a figure of an hour: the triggers gather theirs into an array and hand it to
-- switchboard_add_report_hours, whose statements are planned once a connection.
create type switchboard_hour_change as (
  workspace_id text, campaign_id text, hour timestamptz, previous timestamptz, figure text, n bigint
);

-- What the timeline entries of some messages (all when null) count, leaving out some entries (a
-- statement's new ones, for the state before it): one row per entry that counts somewhere.
create function switchboard_timeline_figures(messages text[], left_out bigint[])
returns table (message_id text, hour timestamptz, previous timestamptz, figure text)
language sql stable as $$
  select message_id, hour, coalesce(previous, '-infinity'), figure
  from (
    select e.message_id, f.figure, switchboard_hour(e.occurred_at) as hour,
      case when f.figure in ('delivered', 'human_opens') then '-infinity'::timestamptz
        else switchboard_hour(lag(e.occurred_at) over (partition by e.message_id, f.figure order by e.occurred_at, e.id))
      end as previous
    from message_events e
    cross join lateral (
      select case e.type when 'delivered' then 'delivered' when 'opened' then 'human_opens'
        when 'clicked' then 'human_clicks' when 'complained' then 'complaints' when 'unsubscribed' then 'unsubscribes'
        when 'bounced' then case when e.detail ->> 'bounceType' = 'soft' then 'soft_bounces' else 'hard_bounces' end
      end as figure
    ) f
    where e.type in ('delivered', 'opened', 'clicked', 'complained', 'unsubscribed', 'bounced')
      and (messages is null or e.message_id = any(messages))
      -- not in a subquery: hashed, where = any(array) compares each entry with each id.
      and e.id not in (select unnest(left_out))
  ) entries
  where previous is null or previous < hour
$$;

-- The figure a hit that is not a person's counts in (null for a person's).
create function switchboard_machine_hit_figure(human boolean, kind text, reasons text[]) returns text
language sql immutable parallel safe as $$
  select case when human then null when kind <> 'open' then 'machine_clicks'
    when 'mail_proxy' = any(reasons) then 'proxy_opens' else 'machine_opens' end
$$;

-- Adds changes to the hours of their campaign (one that exists) and of their workspace.
create function switchboard_add_report_hours(changes switchboard_hour_change[]) returns void language plpgsql as $$
begin
  if coalesce(cardinality(changes), 0) = 0 then
    return;
  end if;
  with summed as (
    select c.workspace_id, c.campaign_id, c.hour, c.previous, c.figure, grouping(c.campaign_id) = 1 as whole,
      sum(c.n) as n
    from unnest(changes) c
    group by grouping sets ((c.workspace_id, c.campaign_id, c.hour, c.previous, c.figure),
      (c.workspace_id, c.hour, c.previous, c.figure))
    having sum(c.n) <> 0
  ), hours as (
    select workspace_id, campaign_id, hour, previous, whole,
      coalesce(sum(n) filter (where figure = 'sent'), 0) as sent,
      coalesce(sum(n) filter (where figure = 'delivered'), 0) as delivered,
      coalesce(sum(n) filter (where figure = 'human_opens'), 0) as human_opens,
      coalesce(sum(n) filter (where figure = 'machine_opens'), 0) as machine_opens,
      coalesce(sum(n) filter (where figure = 'proxy_opens'), 0) as proxy_opens,
      coalesce(sum(n) filter (where figure = 'human_clicks'), 0) as human_clicks,
      coalesce(sum(n) filter (where figure = 'machine_clicks'), 0) as machine_clicks,
      coalesce(sum(n) filter (where figure = 'hard_bounces'), 0) as hard_bounces,
      coalesce(sum(n) filter (where figure = 'soft_bounces'), 0) as soft_bounces,
      coalesce(sum(n) filter (where figure = 'complaints'), 0) as complaints,
      coalesce(sum(n) filter (where figure = 'unsubscribes'), 0) as unsubscribes,
      coalesce(sum(n) filter (where figure = 'conversions'), 0) as conversions
    from summed
    group by workspace_id, campaign_id, hour, previous, whole
  ), of_campaigns as (
    insert into campaign_hourly_counts as c (workspace_id, campaign_id, hour, previous, backend, sent, delivered,
      human_opens, machine_opens, proxy_opens, human_clicks, machine_clicks, hard_bounces, soft_bounces, complaints,
      unsubscribes, conversions)
    select h.workspace_id, h.campaign_id, h.hour, h.previous, pg_backend_pid(), h.sent, h.delivered, h.human_opens,
      h.machine_opens, h.proxy_opens, h.human_clicks, h.machine_clicks, h.hard_bounces, h.soft_bounces, h.complaints,
      h.unsubscribes, h.conversions
    from hours h
    join campaigns k on k.workspace_id = h.workspace_id and k.id = h.campaign_id
    where not h.whole
    on conflict (workspace_id, campaign_id, hour, previous, backend) do update set
      sent = c.sent + excluded.sent, delivered = c.delivered + excluded.delivered,
      human_opens = c.human_opens + excluded.human_opens, machine_opens = c.machine_opens + excluded.machine_opens,
      proxy_opens = c.proxy_opens + excluded.proxy_opens, human_clicks = c.human_clicks + excluded.human_clicks,
      machine_clicks = c.machine_clicks + excluded.machine_clicks,
      hard_bounces = c.hard_bounces + excluded.hard_bounces, soft_bounces = c.soft_bounces + excluded.soft_bounces,
      complaints = c.complaints + excluded.complaints, unsubscribes = c.unsubscribes + excluded.unsubscribes,
      conversions = c.conversions + excluded.conversions
  )
  -- A workspace being deleted takes its hours with it: its messages' cascade has nothing to take away.
  insert into workspace_hourly_counts as w (workspace_id, hour, previous, backend, sent, delivered, human_opens,
    machine_opens, proxy_opens, human_clicks, machine_clicks, hard_bounces, soft_bounces, complaints, unsubscribes,
    conversions)
  select h.workspace_id, h.hour, h.previous, pg_backend_pid(), h.sent, h.delivered, h.human_opens, h.machine_opens,
    h.proxy_opens, h.human_clicks, h.machine_clicks, h.hard_bounces, h.soft_bounces, h.complaints, h.unsubscribes,
    h.conversions
  from hours h
  join workspaces s on s.id = h.workspace_id
  where h.whole
  on conflict (workspace_id, hour, previous, backend) do update set
    sent = w.sent + excluded.sent, delivered = w.delivered + excluded.delivered,
    human_opens = w.human_opens + excluded.human_opens, machine_opens = w.machine_opens + excluded.machine_opens,
    proxy_opens = w.proxy_opens + excluded.proxy_opens, human_clicks = w.human_clicks + excluded.human_clicks,
    machine_clicks = w.machine_clicks + excluded.machine_clicks,
    hard_bounces = w.hard_bounces + excluded.hard_bounces, soft_bounces = w.soft_bounces + excluded.soft_bounces,
    complaints = w.complaints + excluded.complaints, unsubscribes = w.unsubscribes + excluded.unsubscribes,
    conversions = w.conversions + excluded.conversions;
end $$;

-- The clicks per link of a period (100 links at most, most clicked by people first) were counted
-- from the period's click hits: 1.3 s for a 30-day workspace report at a million messages, 2.1 s
-- for a campaign's (its messages' hits). Kept per link and hour too, for the workspace (campaign_id
-- '') and each campaign (the rows of a deleted campaign are never read again, and go with the
-- workspace), as they were counted: a link's machine hits each, and the messages a person clicked
-- it in, once each in the period (`previous` as above, per message and link, over the hits the
-- worker settled as a person's). A link is keyed by the md5 of its URL: a URL may be longer than an
-- index entry can be.
create table link_hourly_counts (
  workspace_id text not null references workspaces (id) on delete cascade,
  campaign_id text not null,
  hour timestamptz not null,
  url_key uuid not null,
  previous timestamptz not null,
  backend integer not null,
  url text not null,
  human_clicks bigint not null default 0,
  machine_clicks bigint not null default 0,
  primary key (workspace_id, campaign_id, hour, url_key, previous, backend)
);

create type switchboard_link_change as (
  workspace_id text, campaign_id text, url text, hour timestamptz, previous timestamptz, human bigint, machine bigint
);

-- What a person's settled clicks count per link: the hits of some messages (all when null) in the
-- table, leaving some out and adding others (a statement's new and old rows, for the state before
-- it); one row per hit that counts somewhere.
create function switchboard_link_figures(workspaces text[], messages text[], left_out bigint[], added message_hits[])
returns table (message_id text, url text, hour timestamptz, previous timestamptz)
language sql stable as $$
  select message_id, url, hour, previous
  from (
    select message_id, url, switchboard_hour(occurred_at) as hour,
      coalesce(switchboard_hour(lag(occurred_at) over (partition by message_id, url order by occurred_at, id)),
        '-infinity') as previous
    from (
      select h.id, h.message_id, h.url, h.occurred_at from message_hits h
      where (workspaces is null or h.workspace_id = any(workspaces)) and (messages is null or h.message_id = any(messages))
        and h.kind = 'click' and h.url is not null and h.human and h.classified_at is not null
        and h.id not in (select unnest(left_out))
      union all
      select a.id, a.message_id, a.url, a.occurred_at from unnest(added) a
      where a.kind = 'click' and a.url is not null and a.human and a.classified_at is not null
    ) hits
  ) counted
  where previous < hour
$$;

-- Adds changes to the links of their workspace and of their campaign.
create function switchboard_add_link_hours(changes switchboard_link_change[]) returns void language plpgsql as $$
begin
  if coalesce(cardinality(changes), 0) = 0 then
    return;
  end if;
  insert into link_hourly_counts as l (workspace_id, campaign_id, hour, url_key, previous, backend, url,
    human_clicks, machine_clicks)
  select c.workspace_id, s.campaign_id, c.hour, md5(c.url)::uuid, c.previous, pg_backend_pid(), min(c.url),
    sum(c.human), sum(c.machine)
  from unnest(changes) c
  cross join lateral (select '' as campaign_id union all select c.campaign_id where c.campaign_id is not null) s
  join workspaces w on w.id = c.workspace_id
  group by c.workspace_id, s.campaign_id, c.hour, md5(c.url)::uuid, c.previous
  having sum(c.human) <> 0 or sum(c.machine) <> 0
  on conflict (workspace_id, campaign_id, hour, url_key, previous, backend) do update set
    human_clicks = l.human_clicks + excluded.human_clicks, machine_clicks = l.machine_clicks + excluded.machine_clicks;
end $$;

-- 0060's triggers, each with its part for the hours: 'sent' by sent_at for every message.
create or replace function switchboard_count_campaign_messages() returns trigger language plpgsql as $$
declare
  changes switchboard_hour_change[];
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
  -- Most statements send nothing (messages queued, claimed, retried): told apart by a cached plan.
  if tg_op = 'INSERT' then
    if not exists (select 1 from new_rows where sent_at is not null) then
      return null;
    end if;
  elsif not exists (
    select 1 from new_rows n join old_rows o on o.id = n.id
    where (n.sent_at, n.campaign_id) is distinct from (o.sent_at, o.campaign_id)
  ) then
    return null;
  end if;
  -- Static statements, planned once a connection (an EXECUTE is planned on each run).
  if tg_op = 'INSERT' then
    changes := array(
      select (n.workspace_id, n.campaign_id, switchboard_hour(n.sent_at), '-infinity', 'sent', count(*))::switchboard_hour_change
      from new_rows n where n.sent_at is not null
      group by n.workspace_id, n.campaign_id, switchboard_hour(n.sent_at));
  else
    changes := array(
      select (m.workspace_id, m.campaign_id, switchboard_hour(m.sent_at), '-infinity', 'sent', sum(m.sign))::switchboard_hour_change
      from (select workspace_id, campaign_id, sent_at, 1 as sign from new_rows
        union all select workspace_id, campaign_id, sent_at, -1 from old_rows) m
      where m.sent_at is not null
      group by m.workspace_id, m.campaign_id, switchboard_hour(m.sent_at)
      having sum(m.sign) <> 0);
  end if;
  perform switchboard_add_report_hours(changes);
  return null;
end $$;

-- Timeline entries: the figures counted once per message are counted again with and without the
-- statement's entries (a message has a handful), so an entry recorded before the message's earlier
-- ones (a provider's time) moves its first one as it should. Two transactions recording entries of
-- one message at the same instant count as 0060 says (neither sees the other's).
create or replace function switchboard_count_campaign_events() returns trigger language plpgsql as $$
declare
  touched text[];
  new_ids bigint[];
  changes switchboard_hour_change[];
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

  -- Deliveries and opens count each entry (a cached plan); a message's first click, complaint,
  -- unsubscribe or bounce of a period depends on its other entries of the figure.
  changes := array(
    select (m.workspace_id, m.campaign_id, switchboard_hour(n.occurred_at), '-infinity',
      case n.type when 'delivered' then 'delivered' else 'human_opens' end, count(*))::switchboard_hour_change
    from new_rows n
    join messages m on m.id = n.message_id
    where n.type in ('delivered', 'opened')
    group by m.workspace_id, m.campaign_id, switchboard_hour(n.occurred_at), n.type);
  touched := array(select distinct n.message_id from new_rows n
    where n.type in ('clicked', 'complained', 'unsubscribed', 'bounced'));
  if cardinality(touched) > 0 then
    -- Variables, not subqueries, as arguments: the function's query is then inlined into this one.
    new_ids := array(select n.id from new_rows n);
    changes := changes || array(
      select (m.workspace_id, m.campaign_id, f.hour, f.previous, f.figure, sum(f.n))::switchboard_hour_change
      from (
        select t.message_id, t.hour, t.previous, t.figure, 1 as n from switchboard_timeline_figures(touched, '{}') t
        union all
        select t.message_id, t.hour, t.previous, t.figure, -1
        from switchboard_timeline_figures(touched, new_ids) t
      ) f
      join messages m on m.id = f.message_id
      where f.figure not in ('delivered', 'human_opens')
      group by m.workspace_id, m.campaign_id, f.hour, f.previous, f.figure
      having sum(f.n) <> 0);
  end if;
  perform switchboard_add_report_hours(changes);
  return null;
end $$;

-- Hits: each hit that is not a person's, new state in and old out (a person's hit the worker
-- settles as a machine's starts counting then; one pruned stops).
create or replace function switchboard_count_campaign_hits() returns trigger language plpgsql as $$
declare
  changes switchboard_hour_change[];
  touched text[];
  workspaces text[];
  new_ids bigint[];
  added message_hits[];
  links switchboard_link_change[];
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
  -- Clicks per link: a person's (settled) counted again for the messages whose settled clicks the
  -- statement touched, with and without its rows (its new rows left out, its old ones added);
  -- machines' each. A click recorded by a request is not settled yet: only its machine part counts.
  if tg_op = 'INSERT' then
    touched := array(select distinct n.message_id from new_rows n
      where n.kind = 'click' and n.url is not null and n.human and n.classified_at is not null);
    workspaces := array(select distinct n.workspace_id from new_rows n);
    new_ids := array(select n.id from new_rows n);
    links := array(
      select (m.workspace_id, m.campaign_id, n.url, switchboard_hour(n.occurred_at), '-infinity', 0,
        count(*))::switchboard_link_change
      from new_rows n join messages m on m.id = n.message_id
      where n.kind = 'click' and n.url is not null and not n.human
      group by m.workspace_id, m.campaign_id, n.url, switchboard_hour(n.occurred_at));
  elsif tg_op = 'DELETE' then
    touched := array(select distinct o.message_id from old_rows o
      where o.kind = 'click' and o.url is not null and o.human and o.classified_at is not null);
    workspaces := array(select distinct o.workspace_id from old_rows o);
    added := array(select row(o.*)::message_hits from old_rows o);
    links := array(
      select (m.workspace_id, m.campaign_id, o.url, switchboard_hour(o.occurred_at), '-infinity', 0,
        -count(*))::switchboard_link_change
      from old_rows o join messages m on m.id = o.message_id
      where o.kind = 'click' and o.url is not null and not o.human
      group by m.workspace_id, m.campaign_id, o.url, switchboard_hour(o.occurred_at));
  else
    touched := array(select distinct n.message_id from new_rows n join old_rows o on o.id = n.id
      where (n.kind = 'click' and n.url is not null and n.human and n.classified_at is not null
          or o.kind = 'click' and o.url is not null and o.human and o.classified_at is not null)
        and (n.human, n.classified_at, n.occurred_at, n.url) is distinct from (o.human, o.classified_at, o.occurred_at, o.url));
    workspaces := array(select distinct n.workspace_id from new_rows n);
    new_ids := array(select n.id from new_rows n);
    added := array(select row(o.*)::message_hits from old_rows o);
    links := array(
      select (m.workspace_id, m.campaign_id, h.url, switchboard_hour(h.occurred_at), '-infinity', 0,
        sum(h.sign))::switchboard_link_change
      from (select message_id, url, occurred_at, 1 as sign from new_rows where kind = 'click' and not human
        union all select message_id, url, occurred_at, -1 from old_rows where kind = 'click' and not human) h
      join messages m on m.id = h.message_id
      where h.url is not null
      group by m.workspace_id, m.campaign_id, h.url, switchboard_hour(h.occurred_at)
      having sum(h.sign) <> 0);
  end if;
  if cardinality(touched) > 0 then
    links := links || array(
      select (m.workspace_id, m.campaign_id, f.url, f.hour, f.previous, sum(f.n), 0)::switchboard_link_change
      from (
        select t.message_id, t.url, t.hour, t.previous, 1 as n
        from switchboard_link_figures(workspaces, touched, '{}', '{}') t
        union all
        select t.message_id, t.url, t.hour, t.previous, -1
        from switchboard_link_figures(workspaces, touched, coalesce(new_ids, '{}'), coalesce(added, '{}')) t
      ) f
      join messages m on m.id = f.message_id
      group by m.workspace_id, m.campaign_id, f.url, f.hour, f.previous
      having sum(f.n) <> 0);
  end if;
  perform switchboard_add_link_hours(links);
  -- A person's hits (recorded, settled as a person's) count nothing here: told apart by a cached plan.
  if tg_op = 'INSERT' then
    if not exists (select 1 from new_rows where not human) then
      return null;
    end if;
  elsif tg_op = 'DELETE' then
    if not exists (select 1 from old_rows where not human) then
      return null;
    end if;
  elsif not exists (
    select 1 from new_rows n join old_rows o on o.id = n.id
    where not (n.human and o.human)
      and (n.human, n.kind, n.reasons, n.occurred_at) is distinct from (o.human, o.kind, o.reasons, o.occurred_at)
  ) then
    return null;
  end if;
  -- Static statements, planned once a connection (an EXECUTE is planned on each run).
  if tg_op = 'INSERT' then
    changes := array(
      select (m.workspace_id, m.campaign_id, switchboard_hour(n.occurred_at), '-infinity',
        switchboard_machine_hit_figure(n.human, n.kind, n.reasons), count(*))::switchboard_hour_change
      from new_rows n join messages m on m.id = n.message_id
      where not n.human
      group by m.workspace_id, m.campaign_id, switchboard_hour(n.occurred_at),
        switchboard_machine_hit_figure(n.human, n.kind, n.reasons));
  elsif tg_op = 'DELETE' then
    changes := array(
      select (m.workspace_id, m.campaign_id, switchboard_hour(o.occurred_at), '-infinity',
        switchboard_machine_hit_figure(o.human, o.kind, o.reasons), -count(*))::switchboard_hour_change
      from old_rows o join messages m on m.id = o.message_id
      where not o.human
      group by m.workspace_id, m.campaign_id, switchboard_hour(o.occurred_at),
        switchboard_machine_hit_figure(o.human, o.kind, o.reasons));
  else
    changes := array(
      select (m.workspace_id, m.campaign_id, switchboard_hour(h.occurred_at), '-infinity', h.figure,
        sum(h.sign))::switchboard_hour_change
      from (select message_id, occurred_at, 1 as sign, switchboard_machine_hit_figure(human, kind, reasons) as figure
          from new_rows where not human
        union all
        select message_id, occurred_at, -1, switchboard_machine_hit_figure(human, kind, reasons)
          from old_rows where not human) h
      join messages m on m.id = h.message_id
      group by m.workspace_id, m.campaign_id, switchboard_hour(h.occurred_at), h.figure
      having sum(h.sign) <> 0);
  end if;
  perform switchboard_add_report_hours(changes);
  return null;
end $$;

-- Enrollments: conversions by completed_at (an update that moves neither status, step nor
-- completed_at writes nothing).
create or replace function switchboard_count_campaign_enrollments() returns trigger language plpgsql as $$
declare
  changes switchboard_hour_change[];
begin
  if tg_op = 'UPDATE' then
    if not exists (
      select 1 from new_rows n join old_rows o on o.workspace_id = n.workspace_id and o.id = n.id
      where (n.status, n.step_key, n.campaign_id, n.completed_at)
        is distinct from (o.status, o.step_key, o.campaign_id, o.completed_at)
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
  -- Conversions are few among the enrollments a statement changes.
  if tg_op = 'INSERT' then
    if not exists (select 1 from new_rows where status = 'converted') then
      return null;
    end if;
  elsif tg_op = 'DELETE' then
    if not exists (select 1 from old_rows where status = 'converted') then
      return null;
    end if;
  elsif not exists (select 1 from new_rows where status = 'converted')
    and not exists (select 1 from old_rows where status = 'converted') then
    return null;
  end if;
  execute format($sql$
    select array(
      select (e.workspace_id, e.campaign_id, switchboard_hour(e.completed_at), '-infinity', 'conversions',
        sum(e.sign))::switchboard_hour_change
      from (%s) e
      where e.status = 'converted' and e.completed_at is not null
      group by e.workspace_id, e.campaign_id, switchboard_hour(e.completed_at)
      having sum(e.sign) <> 0)
  $sql$, switchboard_changed_rows(tg_op)) into changes;
  perform switchboard_add_report_hours(changes);
  return null;
end $$;

-- A message deleted (erased with its contact, pruned by RETENTION_MESSAGES_MS) takes away all it
-- counted, in its workspace's hours and its campaign's, before its timeline and hits go with it
-- (as 0060's counters do, and as the report counted from the rows: a pruned message is gone from
-- it). Its hits pruned first (RETENTION_TRACKING_HITS_MS) took their part away themselves.
create or replace function switchboard_uncount_campaign_message() returns trigger language plpgsql as $$
begin
  perform switchboard_add_link_hours(array(
    select (old.workspace_id, old.campaign_id, f.url, f.hour, f.previous, -sum(f.human), -sum(f.machine))::switchboard_link_change
    from (
      select t.url, t.hour, t.previous, 1 as human, 0 as machine
      from switchboard_link_figures(array[old.workspace_id], array[old.id], '{}', '{}') t
      union all
      select h.url, switchboard_hour(h.occurred_at), '-infinity', 0, 1
      from message_hits h
      where h.workspace_id = old.workspace_id and h.message_id = old.id and h.kind = 'click' and h.url is not null
        and not h.human
    ) f
    group by f.url, f.hour, f.previous));
  perform switchboard_add_report_hours(array(
    select (old.workspace_id, old.campaign_id, f.hour, f.previous, f.figure, -count(*))::switchboard_hour_change
    from (
      select switchboard_hour(old.sent_at) as hour, '-infinity'::timestamptz as previous, 'sent' as figure
      where old.sent_at is not null
      union all
      select t.hour, t.previous, t.figure from switchboard_timeline_figures(array[old.id], '{}') t
      union all
      select switchboard_hour(h.occurred_at), '-infinity', switchboard_machine_hit_figure(h.human, h.kind, h.reasons)
      from message_hits h
      where h.workspace_id = old.workspace_id and h.message_id = old.id and not h.human
    ) f
    group by f.hour, f.previous, f.figure));
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

-- Counts what the rows of a workspace (every workspace: null) hold, set-based: one pass over each
-- table's rows of a figure, grouped by workspace, campaign and hour before they are added. For what
-- is there already, below, and for rows written with the triggers off (bench/messagesSeed.ts).
create function switchboard_count_report_hours_of_rows(workspace text) returns void language sql as $$
  select switchboard_add_report_hours(array(
    select (workspace_id, campaign_id, hour, previous, figure, sum(n))::switchboard_hour_change
    from (
      select m.workspace_id, m.campaign_id, switchboard_hour(m.sent_at) as hour,
        '-infinity'::timestamptz as previous, 'sent' as figure, count(*) as n
      from messages m where m.sent_at is not null
      group by 1, 2, 3
      union all
      select m.workspace_id, m.campaign_id, t.hour, t.previous, t.figure, count(*)
      from switchboard_timeline_figures(null, '{}') t join messages m on m.id = t.message_id
      group by 1, 2, 3, 4, 5
      union all
      select m.workspace_id, m.campaign_id, switchboard_hour(h.occurred_at), '-infinity',
        switchboard_machine_hit_figure(h.human, h.kind, h.reasons), count(*)
      from message_hits h join messages m on m.id = h.message_id
      where not h.human
      group by 1, 2, 3, 5
      union all
      select workspace_id, campaign_id, switchboard_hour(completed_at), '-infinity', 'conversions', count(*)
      from enrollments where status = 'converted' and completed_at is not null
      group by 1, 2, 3
    ) f
    where workspace is null or workspace_id = workspace
    group by workspace_id, campaign_id, hour, previous, figure));
  select switchboard_add_link_hours(array(
    select (workspace_id, campaign_id, url, hour, previous, sum(human), sum(machine))::switchboard_link_change
    from (
      select m.workspace_id, m.campaign_id, t.url, t.hour, t.previous, count(*) as human, 0 as machine
      from switchboard_link_figures(case when workspace is not null then array[workspace] end, null, '{}', '{}') t
      join messages m on m.id = t.message_id
      group by 1, 2, 3, 4, 5
      union all
      select m.workspace_id, m.campaign_id, h.url, switchboard_hour(h.occurred_at), '-infinity', 0, count(*)
      from message_hits h join messages m on m.id = h.message_id
      where h.kind = 'click' and h.url is not null and not h.human and (workspace is null or h.workspace_id = workspace)
      group by 1, 2, 3, 4
    ) f
    group by workspace_id, campaign_id, url, hour, previous));
$$;

-- What is there already, while writers wait (as 0060): the count and the triggers are committed
-- together.
lock table messages, message_events, message_hits, enrollments in share row exclusive mode;
select switchboard_count_report_hours_of_rows(null);
