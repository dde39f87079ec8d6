-- Password reset links. Only a hex SHA-256 of each link's token is kept, so the table (a backup, a
-- replica) cannot reset anyone's password; a link works once (used_at) and until expires_at.
create table password_resets (
  token_hash text primary key check (token_hash ~ '^[0-9a-f]{64}$'),
  user_id text not null references users (id) on delete cascade,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);

create index password_resets_user_id_idx on password_resets (user_id);
create index password_resets_expires_at_idx on password_resets (expires_at);
