-- Provider sending limits, per workspace and channel, shared by every worker process. One row per
-- workspace and channel holds the configured rate (null: the channel's default, if it has one) and
-- the limiter's state: `next_slot_at`, the earliest time the next send may start (a generic cell
-- rate algorithm: each send reserves the slot max(next_slot_at, now) and moves it on by 1 / rate,
-- in one atomic update, so two processes never take the same slot).
create table channel_send_rates (
  workspace_id text not null references workspaces (id) on delete cascade,
  channel text not null check (channel in ('email', 'push', 'telegram')),
  rate_per_second double precision check (rate_per_second > 0),
  next_slot_at timestamptz not null default '-infinity',
  primary key (workspace_id, channel)
);

-- The slot a queued message reserved for its next attempt (null: none yet); a claim clears it,
-- so a retried message reserves a new one.
alter table messages add column rate_slot_at timestamptz;
