-- Invitations to a workspace by email. Inviting answers alike whether or not the email has an
-- account (so the answer cannot be used to find out who is registered); a person without one
-- becomes a member when they register or sign in with that email, before the invitation expires.
create table invitations (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  email text not null check (email = lower(btrim(email))),
  role text not null check (role in ('ADMIN', 'MEMBER')),
  invited_by text references users (id) on delete set null,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  created_at timestamptz not null default now()
);
-- One pending invitation per workspace and email: inviting again renews it.
create unique index invitations_pending_key on invitations (workspace_id, email) where accepted_at is null;
create index invitations_pending_email_idx on invitations (email) where accepted_at is null;
