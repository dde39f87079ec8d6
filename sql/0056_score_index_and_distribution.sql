-- The console's score range filter and the scoring page, at a million contacts.
--
-- 1. Non-zero lead scores, indexed beside the contacts. The contact list filtered by a score range
-- counted by reading every contact of the workspace (0.78 s p95 at a million, over the console's
-- 300 ms), and so did the decay job's "every non-zero score". An index on contacts.lead_score
-- (0003, dropped by 0008) makes every score change a non-HOT update that rewrites an entry in each
-- of the contacts' seven indexes, the two GIN ones included: measured on a million contacts, 5,000
-- spread score changes wrote 44,024 WAL records with it against 9,996 without, and took 7.4 s
-- against 2.2 s. Here a score change writes one narrow row (two b-tree entries) and the contact's
-- update stays HOT. Score 0, what most contacts have, has no row: new contacts write nothing.
create table contact_scores (
  workspace_id text not null,
  contact_id text not null,
  lead_score integer not null check (lead_score <> 0),
  primary key (workspace_id, contact_id),
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade
);
create index contact_scores_score_idx on contact_scores (workspace_id, lead_score, contact_id);

create function switchboard_keep_contact_score() returns trigger language plpgsql as $$
begin
  if new.lead_score = 0 then
    delete from contact_scores where workspace_id = new.workspace_id and contact_id = new.id;
  else
    insert into contact_scores (workspace_id, contact_id, lead_score)
    values (new.workspace_id, new.id, new.lead_score)
    on conflict (workspace_id, contact_id) do update set lead_score = excluded.lead_score;
  end if;
  return null;
end $$;

-- Row triggers that fire only when there is something to write (a statement trigger cannot name the
-- column, so it would run for every update of a contact).
create trigger contacts_score_inserted after insert on contacts
  for each row when (new.lead_score <> 0) execute function switchboard_keep_contact_score();
create trigger contacts_score_changed after update of lead_score on contacts
  for each row when (old.lead_score is distinct from new.lead_score) execute function switchboard_keep_contact_score();

-- After the triggers, in the same transaction: their lock on contacts holds writers back until the
-- copy is committed, so no score change falls between the copy and the triggers.
insert into contact_scores (workspace_id, contact_id, lead_score)
select workspace_id, id, lead_score from contacts where lead_score <> 0;

-- 2. The score distribution of a large workspace, counted in the background: the count reads every
-- contact (1.9 s at a million), too slow for a page. A workspace of up to 100,000 contacts is
-- counted live at every request; a larger one is served this snapshot with the time it was taken,
-- recounted by the scoring.distributions job while someone reads it (read_at).
create table score_distributions (
  workspace_id text primary key references workspaces (id) on delete cascade,
  -- [{"score": n, "count": n}, …]: the contacts with each score.
  counts jsonb not null,
  total integer not null,
  counted_at timestamptz not null,
  read_at timestamptz not null default now()
);
