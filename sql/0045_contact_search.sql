-- The console's contact search (src/contacts/searchQueries.ts), fast at a million contacts:
-- a substring of the email, name or phone through a trigram index of one lowercased text, and an
-- attribute's value through jsonb containment. pg_trgm ships with PostgreSQL (contrib); a server of
-- DATABASE_URL must have the contrib modules installed, and the migration's role must be allowed
-- to create the extension (docs/operate/deployment.md).
create extension if not exists pg_trgm;

create index contacts_search_trgm_idx on contacts using gin (
  lower(coalesce(email, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(phone, ''))
  gin_trgm_ops
);

create index contacts_attributes_idx on contacts using gin (attributes jsonb_path_ops);
