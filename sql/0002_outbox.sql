-- Outgoing events: every webhook-worthy change is written here by `emit`, in the transaction
-- that made the change, so nothing committed can miss its webhook and nothing rolled back can
-- send one. The webhook worker fans each row out to the subscribed endpoints.

create table outgoing_events (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  type text not null,
  data jsonb not null,
  occurred_at timestamptz not null default now(),
  fanned_out_at timestamptz
);
create index outgoing_events_pending_idx on outgoing_events (occurred_at) where fanned_out_at is null;
create index outgoing_events_workspace_idx on outgoing_events (workspace_id, occurred_at);
