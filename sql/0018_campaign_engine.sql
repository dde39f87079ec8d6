-- The flow engine: where each enrollment is in its campaign's step tree, how it ended, the split
-- paths it drew, and whether a paused campaign holds it; a campaign's goal, its broadcast's paging
-- cursor and when it completed.
--
-- exit_reason and the `converted` status are also added by the messages migration (0017); both
-- are written to work with or without it.
alter table enrollments add column if not exists exit_reason text;
alter table enrollments drop constraint if exists enrollments_status_check;
alter table enrollments add constraint enrollments_status_check
  check (status in ('active', 'completed', 'converted', 'exited'));
alter table enrollments
  add column step_key text,                          -- the step its next job runs; null once ended
  add column next_step_at timestamptz,               -- when that job is due (after a wait)
  add column cohorts jsonb not null default '{}',    -- split step key → path index drawn
  add column held boolean not null default false;    -- stopped at step_key by a paused campaign
update enrollments set step_key = current_step::text where status = 'active';
-- resume finds the enrollments a pause held; the goal check at ingest, a contact's active ones.
create index enrollments_held_idx on enrollments (campaign_id) where held;

alter table campaigns
  add column goal jsonb,
  add column broadcast_cursor text,                  -- last contact enrolled by a broadcast's paging
  add column broadcast_done_at timestamptz,          -- every member enrolled
  add column completed_at timestamptz;               -- campaign.completed emitted

-- Campaign sending pace per workspace: {frequencyCap?: {count, per}, quietHours?: {start, end}}.
alter table workspaces add column campaign_pacing jsonb not null default '{}';
