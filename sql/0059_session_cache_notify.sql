-- Web processes cache who a session signs in and the roles it was seen with (src/http/sessionCache.ts)
-- and forget a user's entries when this channel names them (an empty payload: forget everything).
-- Every change that can end or narrow a session speaks: its row deleted (sign-out, expiry prune,
-- password change, idle end), the user's name or email changed or the user deleted, a membership
-- deleted (also by cascade from its workspace) or its role changed. Writes of lastSeenAt and new
-- sessions or memberships do not: nothing unknown or absent is cached.
create function switchboard_sessions_notify(user_ids text[]) returns void language plpgsql as $$
declare
  user_id text;
begin
  if cardinality(user_ids) > 100 then
    -- A mass prune: one message that drops every entry, rather than a flood of them.
    perform pg_notify('switchboard_sessions', '');
    return;
  end if;
  foreach user_id in array user_ids loop
    perform pg_notify('switchboard_sessions', user_id);
  end loop;
end $$;

create function switchboard_sessions_ended() returns trigger language plpgsql as $$
begin
  perform switchboard_sessions_notify(array(
    select distinct sess ->> 'userId' from ended where sess ->> 'userId' is not null
  ));
  return null;
end $$;

-- Per statement with the deleted rows: the periodic prune deletes many at once.
create trigger sessions_ended
  after delete on sessions referencing old table as ended
  for each statement execute function switchboard_sessions_ended();

create function switchboard_sessions_user_changed() returns trigger language plpgsql as $$
begin
  perform switchboard_sessions_notify(array[old.id]);
  return null;
end $$;

create trigger users_changed_for_sessions
  after update of name, email or delete on users
  for each row execute function switchboard_sessions_user_changed();

create function switchboard_sessions_membership_changed() returns trigger language plpgsql as $$
begin
  perform switchboard_sessions_notify(array[old.user_id]);
  return null;
end $$;

create trigger memberships_changed_for_sessions
  after update of role, user_id, workspace_id or delete on memberships
  for each row execute function switchboard_sessions_membership_changed();

create function switchboard_sessions_all_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('switchboard_sessions', '');
  return null;
end $$;

create trigger sessions_truncated after truncate on sessions
  for each statement execute function switchboard_sessions_all_changed();
create trigger users_truncated_for_sessions after truncate on users
  for each statement execute function switchboard_sessions_all_changed();
create trigger memberships_truncated_for_sessions after truncate on memberships
  for each statement execute function switchboard_sessions_all_changed();
