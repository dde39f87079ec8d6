-- The write path of ingest.
--
-- Rows written for every event (events, outgoing events, segment memberships, score history,
-- enrollments) lose their foreign key to workspaces: each inserted row looked the workspace up and
-- took a KEY SHARE lock on it, so every concurrent ingest transaction of a workspace shared (and
-- multixact-ed) one row lock, and the checks were a sixth of ingest's database time. Memberships,
-- score history and enrollments still go with their workspace through their contact (and segment,
-- campaign), whose foreign keys cascade; outgoing events are transient, and a workspace's webhook
-- endpoints, which they fan out to, cascade with it. Events keep their contact's foreign key; an
-- event without a contact is tied to its workspace by workspace_id alone, so deleting a workspace
-- (no route does today) must delete its events explicitly. The workspace_id columns stay, for the
-- indexes and for every query's workspace filter. (webhook_messages made the same choice in 0006.)
alter table events drop constraint events_workspace_id_fkey;
alter table outgoing_events drop constraint outgoing_events_workspace_id_fkey;
alter table segment_memberships drop constraint segment_memberships_workspace_id_fkey;
alter table score_changes drop constraint score_changes_workspace_id_fkey;
alter table enrollments drop constraint enrollments_workspace_id_fkey;

-- Statistics for a new large workspace: until the tables are analyzed again the planner takes the
-- workspace for a handful of rows and may scan all of it where an index would find one row.
-- Autovacuum's default waits for 10 % of a table to change, which on a large shared table can be a
-- long time; 2 % keeps the estimates close.
alter table contacts set (autovacuum_analyze_scale_factor = 0.02);
alter table events set (autovacuum_analyze_scale_factor = 0.02);

-- A lead-score change rewrote every index of its contact: the score's own index made each update a
-- non-HOT one. No query reads contacts by score range (segment rules on the score are evaluated
-- per contact, or over a whole workspace), so the index goes, and contact pages keep room for the
-- new row versions, which then stay on their page and touch no index.
drop index contacts_workspace_score_idx;
alter table contacts set (fillfactor = 85);

-- Outgoing events are read by the dispatcher through their pending index only; the per-workspace
-- index was one more index entry per row, at several rows per ingested event.
drop index outgoing_events_workspace_idx;
