-- Messages: one row per message to one contact on one channel, from a campaign step or sent
-- transactionally. The row is claimed (queued → sending, with a lease) before the provider is
-- called, so a step sends at most once whatever crashes; a claim whose lease passed without an
-- outcome is marked failed ('interrupted'), never resent.
--
-- No foreign key to workspaces or campaigns, for the reason 0008 gives for enrollments: a
-- broadcast inserts thousands of messages of one campaign at once, and each key check takes a KEY
-- SHARE lock on that one workspace row and campaign row. Messages go with their workspace through
-- their contact; a deleted (draft or archived) campaign leaves its messages' history in place.
create table messages (
  workspace_id text not null,
  id text not null primary key,
  contact_id text not null references contacts (id) on delete cascade,
  channel text not null check (channel in ('email', 'push', 'telegram')),
  campaign_id text,
  enrollment_id text references enrollments (id) on delete set null,
  step_key text,
  status text not null default 'queued'
    check (status in ('queued', 'sending', 'sent', 'failed', 'bounced', 'suppressed')),
  -- The template source and the data it is rendered with, as they were when the message was made:
  -- a campaign edited afterwards does not change a queued message.
  template jsonb not null check (jsonb_typeof(template) = 'object'),
  data jsonb not null default '{}' check (jsonb_typeof(data) = 'object'),
  trigger_event_id text,
  ignore_unsubscribe boolean not null default false,
  recipient text,
  rendered_at timestamptz,
  provider_id text,
  provider_response text,
  error text,
  attempts integer not null default 0,
  next_attempt_at timestamptz,
  lease_until timestamptz,
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  updated_at timestamptz not null default now(),
  constraint messages_step_key unique (workspace_id, enrollment_id, step_key)
);
create index messages_workspace_created_idx on messages (workspace_id, created_at desc, id desc);
create index messages_contact_idx on messages (workspace_id, contact_id, created_at desc);
create index messages_campaign_idx on messages (workspace_id, campaign_id, status) where campaign_id is not null;
create index messages_expired_lease_idx on messages (lease_until) where status = 'sending';

-- Idempotency keys of transactional sends (POST …/messages): a retry with the same key finds the
-- first message instead of sending a second. Kept 7 days, as the events' keys are.
create table message_idempotency_keys (
  workspace_id text not null references workspaces (id) on delete cascade,
  key text not null,
  -- Deferred: the key is claimed first, then the message it names is inserted.
  message_id text not null references messages (id) on delete cascade deferrable initially deferred,
  created_at timestamptz not null default now(),
  primary key (workspace_id, key)
);
create index message_idempotency_keys_created_idx on message_idempotency_keys (created_at);

-- The timeline of a message: queued, sent, failed, bounced, complained, unsubscribed, and later
-- delivered, opened, clicked (provider feedback and tracking).
create table message_events (
  workspace_id text not null,
  id bigint generated always as identity primary key,
  message_id text not null references messages (id) on delete cascade,
  type text not null check (type in ('queued', 'sending', 'sent', 'failed', 'bounced', 'suppressed',
    'retrying', 'complained', 'unsubscribed', 'delivered', 'opened', 'clicked')),
  detail jsonb not null default '{}' check (jsonb_typeof(detail) = 'object'),
  occurred_at timestamptz not null default now()
);
create index message_events_message_idx on message_events (message_id, id);

-- Per contact and channel subscription state; channel 'all' is the global opt-out. No row means
-- subscribed. A hard bounce or a complaint is an 'unsubscribed' email row with that reason, which a
-- transactional message's ignoreUnsubscribe never bypasses.
create table contact_subscriptions (
  workspace_id text not null,
  contact_id text not null references contacts (id) on delete cascade,
  channel text not null check (channel in ('email', 'push', 'telegram', 'all')),
  status text not null check (status in ('subscribed', 'unsubscribed')),
  reason text check (reason in ('link', 'one_click', 'api', 'provider', 'hard_bounce', 'complaint')),
  message_id text,
  changed_at timestamptz not null default now(),
  primary key (workspace_id, contact_id, channel)
);
create index contact_subscriptions_contact_idx on contact_subscriptions (contact_id);

-- Enrollment outcomes the flow engine records: a goal reached (converted), and why a contact left.
alter table enrollments drop constraint enrollments_status_check;
alter table enrollments add constraint enrollments_status_check
  check (status in ('active', 'completed', 'converted', 'exited'));
alter table enrollments add column exit_reason text
  check (exit_reason in ('goal', 'archived', 'unsubscribed', 'manual', 'merged'));
