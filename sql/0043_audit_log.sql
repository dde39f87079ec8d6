-- The audit log: one row per change to a workspace's configuration, written in the transaction of
-- the change (src/audit/record.ts). Who acted is kept by id AND by name (the user's email, the
-- key's name) so an entry still reads right after the user leaves or the key is revoked. Secrets
-- never reach before/after: the recorder redacts them by field name first.
create table audit_entries (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null,
  created_at timestamptz not null default now(),
  action text not null check (action ~ '^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$'),
  target_type text not null,
  target_id text not null,
  actor_type text not null check (actor_type in ('user', 'apiKey', 'cli', 'system')),
  actor_id text,
  actor_name text,
  ip text,
  user_agent text,
  before jsonb,
  after jsonb,
  primary key (workspace_id, id)
);

-- Ids sort by time: the list pages newest first on the primary key; the filters by target and
-- actor, asked of one object's or one person's history, get their own.
create index audit_entries_target_idx on audit_entries (workspace_id, target_type, target_id, id);
create index audit_entries_actor_idx on audit_entries (workspace_id, actor_id, id) where actor_id is not null;
-- Retention deletes by age across workspaces.
create index audit_entries_created_idx on audit_entries (created_at);
