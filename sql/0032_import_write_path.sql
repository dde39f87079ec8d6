-- Rows written for every imported (and ingested) event lose a foreign-key check each, as events'
-- other per-row tables did in 0008: a check is one index probe and a KEY SHARE row lock per row,
-- about a million of each for an import of a million events.
--
-- Score history no longer references its contact. Every writer takes the contact's row lock
-- before it writes a change (ingest and imports score under FOR UPDATE of the contact, merges move
-- the history to the survivor before deleting the other contact), so no change can be written for
-- a contact that is gone; erasing a contact deletes its history explicitly
-- (src/contacts/eraseQueries.ts), and deleting a workspace deletes every table with a
-- workspace_id (src/workspaces/deletion.ts). Citus: dropping a key cannot break distribution by
-- workspace (test/foundation/distributionKeys.test.ts); the rows stay keyed by workspace_id.
alter table score_changes drop constraint score_changes_contact_id_fkey;

-- Idempotency keys no longer reference their workspace: the same KEY SHARE lock on the one
-- workspace row for every key claimed, shared by every concurrent ingest transaction of the
-- workspace. Deleting a workspace deletes its keys with every other table with a workspace_id.
alter table event_idempotency_keys drop constraint event_idempotency_keys_workspace_id_fkey;
