-- A workspace's configuration of each channel (email now; push and telegram later), one row per
-- channel. `settings` holds what the API may show; `secrets` maps a field name to its sealed value
-- ({keyId, iv, tag, ciphertext}, AES-256-GCM under ENCRYPTION_KEY): never a secret in clear.
-- `version` grows on every change, so a process holding a pooled transport knows to rebuild it.
create table channel_configs (
  workspace_id text not null references workspaces (id) on delete cascade,
  channel text not null check (channel in ('email', 'push', 'telegram')),
  settings jsonb not null,
  secrets jsonb not null default '{}'::jsonb check (jsonb_typeof(secrets) = 'object'),
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, channel)
);
