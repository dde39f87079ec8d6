-- The campaign counter tables (0060, 0061) lose their foreign keys to campaigns. Each counting
-- statement's upsert checked its row's campaign with SELECT … FOR KEY SHARE on the campaign's one
-- row: during a broadcast every sending transaction locks that same row, PostgreSQL keeps the
-- lockers as a multixact, and the checks queued behind one another. bench:broadcast's statement
-- time per message: ~1,900-2,100 µs with the keys, ~1,000-1,100 without (the counters' triggers off
-- entirely: ~700-1,100); the send rate fell to 0.62 of raw with them, from 0.69-0.73 before 0060.
-- What the keys did is done here instead:
-- - a campaign's rows go with it: a statement trigger on campaigns deletes the counters of the
--   campaigns a statement deleted (a workspace's deletion cascades to its campaigns and fires it);
-- - a row for no campaign is never made: the counting triggers join campaigns and count only what
--   belongs to one that exists in their snapshot. A transaction counting for a campaign another
--   deletes at the same moment can leave rows behind for an id no campaign will have again
--   (ids are never reused): no reader asks for them.
-- link_hourly_counts keeps the links of deleted campaigns (the workspace's report counts their
-- messages), as in 0061; its key to the workspace stays.
do $$
declare
  constraint_row record;
begin
  for constraint_row in
    select c.conrelid::regclass as tbl, c.conname
    from pg_constraint c
    where c.contype = 'f' and c.confrelid = 'campaigns'::regclass
      and c.conrelid in ('campaign_step_counts'::regclass, 'campaign_daily_counts'::regclass,
        'campaign_enrollment_counts'::regclass, 'campaign_hourly_counts'::regclass)
  loop
    execute format('alter table %s drop constraint %I', constraint_row.tbl, constraint_row.conname);
  end loop;
end $$;

create function switchboard_delete_campaign_counters() returns trigger language plpgsql as $$
begin
  delete from campaign_step_counts c using old_rows o where c.workspace_id = o.workspace_id and c.campaign_id = o.id;
  delete from campaign_daily_counts c using old_rows o where c.workspace_id = o.workspace_id and c.campaign_id = o.id;
  delete from campaign_enrollment_counts c using old_rows o where c.workspace_id = o.workspace_id and c.campaign_id = o.id;
  delete from campaign_hourly_counts c using old_rows o where c.workspace_id = o.workspace_id and c.campaign_id = o.id;
  return null;
end $$;

create trigger campaigns_delete_counters after delete on campaigns
  referencing old table as old_rows for each statement execute function switchboard_delete_campaign_counters();
