-- A contact keeps the anonymousIds of the contacts merged into it: a device that goes on sending
-- its anonymousId after an identify or a merge reaches the merged contact instead of splitting
-- off a new one. The contact's own anonymousId stays in contacts.anonymous_id; these are the rest.
create table contact_anonymous_ids (
  workspace_id text not null,
  anonymous_id text not null,
  contact_id text not null references contacts (id) on delete cascade,
  primary key (workspace_id, anonymous_id)
);
create index contact_anonymous_ids_contact_idx on contact_anonymous_ids (contact_id);

-- Score history keeps the id of a rule after the rule is deleted (the API documents ruleId as
-- null only for decay and merges); the check was also one lookup per scored event at ingest.
alter table score_changes drop constraint score_changes_rule_id_fkey;
