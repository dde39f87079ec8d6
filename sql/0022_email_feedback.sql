-- Provider feedback for email: the endpoints a workspace gives Amazon SES (through SNS), SendGrid
-- and Postmark to report bounces, complaints and deliveries, the log of what each endpoint
-- received, and the provider events already applied (a replayed notification changes nothing).

-- One endpoint per workspace and provider. `settings` is what the API may show (the SNS topic,
-- the SendGrid public key, the Postmark user and header names); `secrets` holds sealed values only
-- (the Postmark password and header value), as channel_configs does.
create table email_feedback_endpoints (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  provider text not null check (provider in ('ses', 'sendgrid', 'postmark')),
  settings jsonb not null check (jsonb_typeof(settings) = 'object'),
  secrets jsonb not null default '{}'::jsonb check (jsonb_typeof(secrets) = 'object'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint email_feedback_endpoints_provider unique (workspace_id, provider)
);

-- Every authenticated request an endpoint received (an unauthenticated one is refused with 401 and
-- kept nowhere: anyone can post to a public URL). `events` lists what became of each provider
-- event in it: applied, duplicate, unknown_message or ignored.
create table email_feedback_receipts (
  workspace_id text not null,
  id text not null primary key,
  endpoint_id text not null references email_feedback_endpoints (id) on delete cascade,
  provider text not null,
  response_status integer not null,
  outcome text not null,
  events jsonb not null default '[]'::jsonb check (jsonb_typeof(events) = 'array'),
  error text,
  received_at timestamptz not null default now()
);
create index email_feedback_receipts_workspace_idx on email_feedback_receipts (workspace_id, received_at desc, id desc);
create index email_feedback_receipts_endpoint_idx on email_feedback_receipts (endpoint_id);

-- Each provider event once, by the provider's own id (SNS MessageId, sg_event_id, Postmark ID):
-- the key a replay collides on. `message_id` is null for a message we could not find.
create table email_feedback_events (
  workspace_id text not null,
  provider text not null,
  event_id text not null,
  receipt_id text not null,
  kind text not null check (kind in ('hard_bounce', 'soft_bounce', 'complaint', 'delivery')),
  message_id text,
  email text,
  detail jsonb not null default '{}'::jsonb check (jsonb_typeof(detail) = 'object'),
  recorded_at timestamptz not null default now(),
  primary key (workspace_id, provider, event_id)
);

-- Soft bounces in a row per contact: a delivery resets it, FEEDBACK_SOFT_BOUNCE_LIMIT suppresses.
create table email_soft_bounce_streaks (
  workspace_id text not null,
  contact_id text not null references contacts (id) on delete cascade,
  count integer not null,
  updated_at timestamptz not null default now(),
  primary key (workspace_id, contact_id)
);

-- Feedback finds a message by the id the provider gave it at send (SES's id in the SMTP reply).
create index messages_provider_id_idx on messages (workspace_id, provider_id) where provider_id is not null;

-- Too many soft bounces in a row suppress email like a hard bounce does.
alter table contact_subscriptions drop constraint contact_subscriptions_reason_check;
alter table contact_subscriptions add constraint contact_subscriptions_reason_check
  check (reason in ('link', 'one_click', 'api', 'provider', 'hard_bounce', 'complaint', 'soft_bounces'));
