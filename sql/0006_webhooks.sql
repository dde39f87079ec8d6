-- Webhooks: endpoints (outbound targets and inbound receivers), outbound messages (one per event
-- and endpoint, body serialised once), the queue of attempts still to make, and the delivery log
-- (one row per attempt made, outbound or inbound).

create table webhook_endpoints (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  name text not null check (char_length(name) between 1 and 100),
  direction text not null check (direction in ('INBOUND', 'OUTBOUND')),
  url text check (char_length(url) <= 2048),
  events text[] not null default '{}', -- empty: every type
  secret text, -- whsec_…; null only for an INBOUND endpoint created unsigned
  previous_secret text, -- still signs beside `secret` until previous_secret_expires_at
  previous_secret_expires_at timestamptz,
  active boolean not null default true,
  disabled_reason text,
  failing_since timestamptz, -- first failed attempt since the last success
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint webhook_endpoints_url_direction_check check ((direction = 'OUTBOUND') = (url is not null))
);
create index webhook_endpoints_workspace_idx on webhook_endpoints (workspace_id, created_at, id);
create index webhook_endpoints_fanout_idx on webhook_endpoints (workspace_id)
  where active and direction = 'OUTBOUND';

-- Messages, attempts and deliveries go with their endpoint (which goes with its workspace), so they
-- carry workspace_id without a foreign key of their own: no lookup and lock per inserted row.
create table webhook_messages (
  workspace_id text not null,
  id text not null primary key, -- the Standard Webhooks `webhook-id`, stable across attempts
  endpoint_id text not null references webhook_endpoints (id) on delete cascade,
  outgoing_event_id text, -- null for pings
  event text not null,
  body text not null, -- sent byte-for-byte on every attempt
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed', 'skipped')),
  last_attempt integer not null default 0, -- numbering of this message's attempts
  created_at timestamptz not null default now(),
  constraint webhook_messages_endpoint_event_key unique (endpoint_id, outgoing_event_id)
) with (fillfactor = 70); -- room on each page, so status updates are HOT and touch no index
-- The unique key above also serves lookups and cascades by endpoint.
create index webhook_messages_workspace_created_idx on webhook_messages (workspace_id, created_at);

-- Attempts still to make. `due_at` doubles as the lease: a worker that claims a row pushes it
-- forward by the lease, so a crashed worker's attempts fall due again by themselves. The row is
-- deleted in the transaction that writes its delivery record: nothing claimed is ever lost.
create table webhook_attempts (
  workspace_id text not null,
  id text not null primary key, -- becomes the delivery record's id (X-Webhook-Delivery)
  message_id text not null references webhook_messages (id) on delete cascade, -- and so with the endpoint
  endpoint_id text not null,
  attempt integer not null check (attempt > 0),
  trigger text not null check (trigger in ('scheduled', 'manual')),
  schedule_index integer, -- position in the retry schedule; null for manual attempts
  due_at timestamptz not null default now(),
  claims integer not null default 0,
  created_at timestamptz not null default now()
);
create index webhook_attempts_due_idx on webhook_attempts (due_at);
create index webhook_attempts_message_idx on webhook_attempts (message_id);

create table webhook_deliveries (
  workspace_id text not null,
  id text not null primary key,
  endpoint_id text not null references webhook_endpoints (id) on delete cascade,
  -- No foreign key: messages go only with their endpoint, which takes its deliveries along; one
  -- fewer index and row lock on the hottest insert.
  message_id text,
  direction text not null check (direction in ('INBOUND', 'OUTBOUND')),
  event text,
  attempt integer not null,
  trigger text check (trigger in ('scheduled', 'manual')),
  url text,
  response_status integer,
  response_body text,
  duration_ms integer not null,
  error text,
  success boolean not null,
  idempotency_key text, -- inbound: the sender's webhook-id or Idempotency-Key
  created_at timestamptz not null default now()
);
create index webhook_deliveries_workspace_created_idx on webhook_deliveries (workspace_id, created_at desc, id desc);
create index webhook_deliveries_endpoint_created_idx on webhook_deliveries (endpoint_id, created_at desc, id desc);
-- A sender's repeat of a receipt that succeeded returns the first result and creates nothing.
create unique index webhook_deliveries_inbound_dedupe_key on webhook_deliveries (endpoint_id, idempotency_key)
  where success and idempotency_key is not null;
