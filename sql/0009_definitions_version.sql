-- Ingest caches each workspace's segments, campaigns and scoring rules in the process
-- (src/events/definitions.ts) and reads only this number per request: any change to those rows
-- moves it, and a cache holding another number reads the definitions again in the same statement.
alter table workspaces add column definitions_version bigint not null default 0;

create function switchboard_bump_definitions_version() returns trigger language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    update workspaces set definitions_version = definitions_version + 1 where id = old.workspace_id;
  end if;
  if tg_op = 'INSERT' or (tg_op = 'UPDATE' and new.workspace_id is distinct from old.workspace_id) then
    update workspaces set definitions_version = definitions_version + 1 where id = new.workspace_id;
  end if;
  return null;
end $$;

create trigger segments_definitions_version after insert or update or delete on segments
  for each row execute function switchboard_bump_definitions_version();
create trigger campaigns_definitions_version after insert or update or delete on campaigns
  for each row execute function switchboard_bump_definitions_version();
create trigger scoring_rules_definitions_version after insert or update or delete on scoring_rules
  for each row execute function switchboard_bump_definitions_version();
