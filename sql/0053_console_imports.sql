-- Imports started from the console (src/imports/console.ts): the uploaded file, kept in the database
-- in chunks until the import ends (the worker reads it back, whichever machine it runs on), what
-- its columns are and where each one goes, the progress the worker reports, the outcome, and the
-- refused rows with their reasons and their text as uploaded (the rejects file).
create table imports (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null,
  kind text not null check (kind in ('contacts', 'events')),
  format text not null check (format in ('csv', 'ndjson')),
  file_name text not null,
  file_bytes bigint not null default 0,
  -- uploading → uploaded (mapping shown) → queued → running → finished | failed
  status text not null check (status in ('uploading', 'uploaded', 'queued', 'running', 'finished', 'failed')),
  -- A CSV file's header, or the keys of an NDJSON file's first rows.
  columns jsonb not null default '[]',
  -- Where each column goes, in the order of `columns` (CSV only): field:<name>, attribute, metadata, ignore.
  targets jsonb not null default '[]',
  trigger_campaigns boolean not null default false,
  phase text,
  bytes_read bigint not null default 0,
  rows_read integer not null default 0,
  imported integer not null default 0,
  refused integer not null default 0,
  summary jsonb,
  error text,
  created_by text references users (id) on delete set null,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  primary key (workspace_id, id)
);

-- Retention finds old imports across workspaces by their time.
create index imports_created_idx on imports (created_at);

create table import_file_chunks (
  workspace_id text not null,
  import_id text not null,
  seq integer not null,
  bytes bytea not null,
  primary key (workspace_id, import_id, seq),
  foreign key (workspace_id, import_id) references imports (workspace_id, id) on delete cascade
);

create table import_rejects (
  workspace_id text not null,
  import_id text not null,
  line integer not null,
  reason text not null,
  -- The row's text as uploaded (null when it was longer than the service keeps, 1 MiB).
  raw text,
  primary key (workspace_id, import_id, line),
  foreign key (workspace_id, import_id) references imports (workspace_id, id) on delete cascade
);
