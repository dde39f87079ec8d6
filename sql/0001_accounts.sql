-- Accounts, workspaces, memberships, sessions, API keys and sign-in throttling.

create table users (
  id text primary key,
  name text not null check (char_length(name) between 1 and 100),
  email text not null check (email = lower(btrim(email))),
  password_hash text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint users_email_key unique (email)
);

create table workspaces (
  id text primary key,
  name text not null check (char_length(name) between 1 and 100),
  created_at timestamptz not null default now()
);

create table memberships (
  workspace_id text not null references workspaces (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  role text not null check (role in ('ADMIN', 'MEMBER')),
  created_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
create index memberships_user_idx on memberships (user_id);

-- express-session store (connect-pg-simple's layout, our table name).
create table sessions (
  sid varchar not null primary key,
  sess json not null,
  expire timestamp(6) not null
);
create index sessions_expire_idx on sessions (expire);

create table api_keys (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null,
  name text not null check (char_length(name) between 1 and 100),
  key_hash text not null, -- hex SHA-256 of the whole key; the key itself is never stored
  prefix text not null,
  last4 text not null,
  scopes text[] not null check (cardinality(scopes) > 0),
  created_by text references users (id) on delete set null,
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (id),
  constraint api_keys_key_hash_key unique (key_hash)
);
create index api_keys_workspace_idx on api_keys (workspace_id, created_at);

-- Failed sign-in attempts, counted per e-mail and per IP over a sliding window. Kept in the
-- database so the limit holds across web processes.
create table signin_failures (
  subject text not null, -- 'email:<address>' or 'ip:<address>'
  attempted_at timestamptz not null default now()
);
create index signin_failures_subject_idx on signin_failures (subject, attempted_at);
