-- Events lose their foreign key to contacts (sql/0031), as score history did in 0032. The key
-- checked each inserted event on its own: one lookup of the contact and one KEY SHARE row lock per
-- row, ~7.8 s of the ~22 s a million imported events took to insert (EXPLAIN ANALYZE, trigger time).
--
-- What the key guaranteed (no event refers to a contact that is gone) now rests on row locks, taken
-- once per contact rather than once per event, by every path that writes events:
-- - ingest (src/events/resolveContacts.ts) locks each contact it finds FOR NO KEY UPDATE, in id
--   order, before it inserts their events, and creates the others in its own transaction; a contact
--   deleted or merged away before the lock is not found (and a merged one is found again through
--   its alias);
-- - an import (src/imports/eventQueries.ts, lockEventContacts) locks every contact its events go
--   to FOR KEY SHARE, in id order, before it inserts them, and refuses (nothing committed) when one
--   is gone by then, as the key's check would have failed it;
-- - erasing a contact (src/contacts/service.ts) locks it FOR UPDATE, then deletes its events, then
--   the contact; merging (src/contacts/merge.ts) locks both contacts, moves the events, then deletes
--   the other one. Either waits for a writer holding one of the locks above, and a writer waits for
--   them, so no event can be written for a contact between its events' deletion or move and the
--   contact's deletion.
-- The key's `on delete set null` nulled nothing in practice (those paths empty the contact first);
-- deleting a workspace deletes every table with a workspace_id (src/workspaces/deletion.ts).
-- An installation that converted its events beforehand (README "Converting an existing table") may
-- have the key under another name: whichever key of events references contacts goes.
do $$
declare
  name text;
begin
  for name in
    select conname from pg_constraint
    where conrelid = 'events'::regclass and contype = 'f' and confrelid = 'contacts'::regclass
  loop
    execute format('alter table events drop constraint %I', name);
  end loop;
end $$;
