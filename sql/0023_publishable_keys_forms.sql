-- Browser-facing surfaces: publishable keys, the workspace identity secret, request counters for
-- the public endpoints, and hosted forms with their submissions.

-- A publishable key (`pk_…`) is meant to sit in page source, so it is stored as it is (like a
-- Stripe publishable key) and can be shown again; what makes it safe is what it cannot do: it
-- reaches only the public endpoints, only from its origins, only for its event types.
create table publishable_keys (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  name text not null check (char_length(name) between 1 and 100),
  key text not null,
  allowed_origins text[] not null check (cardinality(allowed_origins) > 0),
  allowed_event_types text[] not null default '{}',
  created_by text references users (id) on delete set null,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  constraint publishable_keys_key_key unique (key)
);
create index publishable_keys_workspace_idx on publishable_keys (workspace_id, created_at);
-- Preflights carry no key: they ask whether any live key allows the origin.
create index publishable_keys_origins_idx on publishable_keys using gin (allowed_origins) where revoked_at is null;

-- The secret a customer's backend signs identities with (identity tokens). Sealed with
-- ENCRYPTION_KEY (src/secrets), never stored in clear.
create table identity_secrets (
  workspace_id text not null primary key references workspaces (id) on delete cascade,
  secret jsonb not null,
  rotated_at timestamptz not null default now()
);

-- Fixed-window request counters for the public endpoints, per key and per client address. Not
-- workspace data (an address is counted across workspaces) and worthless after a crash, so unlogged.
create unlogged table public_request_counts (
  bucket text not null,
  window_start timestamptz not null,
  hits integer not null,
  primary key (bucket, window_start)
);

create table forms (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  name text not null check (char_length(name) between 1 and 200),
  fields jsonb not null check (jsonb_typeof(fields) = 'array'),
  success_message text,
  redirect_url text,
  double_opt_in boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index forms_workspace_idx on forms (workspace_id, created_at, id);

create table form_submissions (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  form_id text not null references forms (id) on delete cascade,
  -- Erasing a person erases what they typed into forms too.
  contact_id text references contacts (id) on delete cascade,
  fields jsonb not null check (jsonb_typeof(fields) = 'object'),
  -- Double opt-in: pending until the confirmation link is followed; otherwise confirmed at once.
  confirmation text not null check (confirmation in ('none', 'pending', 'confirmed')),
  confirmed_at timestamptz,
  created_at timestamptz not null default now()
);
create index form_submissions_form_idx on form_submissions (workspace_id, form_id, created_at, id);
