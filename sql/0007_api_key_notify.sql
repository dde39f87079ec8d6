-- Web processes cache live API keys by hash (src/apiKeys/cache.ts) and drop the cache when this
-- channel speaks: every change that can end a key's life announces itself (revocation, expiry,
-- scopes, the hash, deletion, also by cascade from its workspace). last_used_at writes do not.
create function switchboard_api_keys_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('switchboard_api_keys', '');
  return null;
end $$;

create trigger api_keys_changed
  after update of revoked_at, expires_at, scopes, key_hash, workspace_id or delete or truncate on api_keys
  for each statement execute function switchboard_api_keys_changed();
