-- The timeline's counting trigger (0060, with 0061's hours) returns at once when a statement's
-- entries count in no figure: the send path records a 'sent' entry per message, in batches, and
-- each batch ran the counting's joins over zero entries (bench:broadcast: ~200 µs of statement time
-- per message in the nested campaign_step_counts upsert alone, at 20,000 contacts). The function is
-- otherwise 0061's.
create or replace function switchboard_count_campaign_events() returns trigger language plpgsql as $$
declare
  touched text[];
  new_ids bigint[];
  changes switchboard_hour_change[];
begin
  -- Most entries count in no figure here ('queued', 'sent', 'failed': one per message sent):
  -- a statement of those alone, the send path's, does nothing more than this scan.
  if not exists (
    select 1 from new_rows n
    where n.type in ('delivered', 'opened', 'clicked', 'complained', 'unsubscribed', 'bounced')
  ) then
    return null;
  end if;
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
