-- A timestamp from an ISO 8601 string, or null when the string is not a valid one. Segment
-- and scoring rules compare dates stored in attributes and metadata with it. PostgreSQL 16's
-- pg_input_is_valid would do, but the service supports PostgreSQL 15, so a cast inside an
-- exception block it is. Strings without an offset are UTC.
create function switchboard_parse_instant(value text) returns timestamptz
language plpgsql stable parallel safe as $$
begin
  if value ~ '(Z|[+-]\d\d:\d\d)$' then
    return value::timestamptz;
  end if;
  return value::timestamp at time zone 'UTC';
exception when others then
  return null;
end
$$;
