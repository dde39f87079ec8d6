-- Web push subscriptions: one row per browser (its push service endpoint and the keys the payload
-- is encrypted to), on the contact it was registered for. An endpoint names one browser, so it is
-- unique per workspace: registering it again (another person signs in on that browser) moves it.
-- Deleted when the push service answers 404/410 (the browser dropped it) and with its contact.
create table push_subscriptions (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  contact_id text not null references contacts (id) on delete cascade,
  endpoint text not null,
  p256dh text not null,
  auth text not null,
  expires_at timestamptz,
  user_agent text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, endpoint)
);
create index push_subscriptions_contact_idx on push_subscriptions (workspace_id, contact_id);
