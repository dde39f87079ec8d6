-- Open and click tracking. Every hit on a tracking link or pixel is kept with its classification
-- (human or machine, and why), never dropped: the report counts people, the record shows machines.
--
-- Hits are written by the public routes in one statement each group, with the reasons the request
-- alone shows (method, prefetch headers, user agent); `classified_at` is null until the worker has
-- added the reasons only a window of hits can show (too soon after the send, several links within
-- a second, the honeypot) and, for human hits, ingested message.open / message.click.
create table message_hits (
  workspace_id text not null,
  id bigint generated always as identity primary key,
  message_id text not null references messages (id) on delete cascade,
  kind text not null check (kind in ('open', 'click', 'honeypot')),
  url text,
  method text not null,
  user_agent text,
  human boolean not null,
  reasons text[] not null default '{}',
  occurred_at timestamptz not null default now(),
  classified_at timestamptz
);
create index message_hits_message_idx on message_hits (workspace_id, message_id, occurred_at);
create index message_hits_pending_idx on message_hits (occurred_at) where classified_at is null;

-- Tracking switches: per workspace, and per campaign (both must allow a kind for it to be added).
alter table workspaces add column tracking jsonb not null default '{"opens": true, "clicks": true}';
alter table campaigns add column tracking jsonb not null default '{"opens": true, "clicks": true}';
