-- Contacts, events, segments, lead scoring and campaign enrollment: everything the ingest
-- transaction touches. Every table leads with workspace_id; unique keys start with it.

create table contacts (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  email text check (email = lower(btrim(email))),
  first_name text,
  last_name text,
  phone text,
  anonymous_id text,
  attributes jsonb not null default '{}' check (jsonb_typeof(attributes) = 'object'),
  lead_score integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index contacts_workspace_email_key on contacts (workspace_id, email) where email is not null;
create unique index contacts_workspace_anonymous_id_key on contacts (workspace_id, anonymous_id) where anonymous_id is not null;
create index contacts_workspace_created_idx on contacts (workspace_id, created_at, id);
create index contacts_workspace_score_idx on contacts (workspace_id, lead_score);

-- A merged-away contact's id resolves to the primary for 30 days.
create table contact_aliases (
  workspace_id text not null references workspaces (id) on delete cascade,
  alias_id text not null primary key,
  contact_id text not null references contacts (id) on delete cascade,
  expires_at timestamptz not null
);
create index contact_aliases_contact_idx on contact_aliases (contact_id);

create table events (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  contact_id text references contacts (id) on delete set null,
  type text not null check (char_length(type) between 1 and 200),
  metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
  session_id text,
  page_url text,
  referrer text,
  utm_source text,
  utm_medium text,
  utm_campaign text,
  occurred_at timestamptz not null default now(), -- the event's `timestamp` (past only, for backfills)
  received_at timestamptz not null default now(),
  source text not null default 'api' check (source in ('api', 'batch', 'webhook', 'system'))
);
create index events_workspace_time_idx on events (workspace_id, occurred_at desc, id desc);
create index events_workspace_type_time_idx on events (workspace_id, type, occurred_at desc);
create index events_contact_type_time_idx on events (contact_id, type, occurred_at desc);

-- Idempotency-Key (or body id) → the first event; kept at least 24 hours.
create table event_idempotency_keys (
  workspace_id text not null references workspaces (id) on delete cascade,
  key text not null,
  event_id text not null,
  created_at timestamptz not null default now(),
  primary key (workspace_id, key)
);
create index event_idempotency_keys_created_idx on event_idempotency_keys (created_at);

create table segments (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  name text not null check (char_length(name) between 1 and 200),
  description text,
  rules jsonb not null,
  -- What the rules can depend on, so ingest re-evaluates only the segments an event can move.
  depends_on_event_types text[] not null default '{}',
  depends_on_fields text[] not null default '{}', -- contact fields and 'attributes'
  depends_on_score boolean not null default false,
  has_time_window boolean not null default false,
  status text not null default 'ready' check (status in ('computing', 'ready')),
  computed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index segments_workspace_idx on segments (workspace_id, created_at);

create table segment_memberships (
  workspace_id text not null references workspaces (id) on delete cascade,
  segment_id text not null references segments (id) on delete cascade,
  contact_id text not null references contacts (id) on delete cascade,
  entered_at timestamptz not null default now(),
  primary key (segment_id, contact_id)
);
create index segment_memberships_contact_idx on segment_memberships (contact_id);
create index segment_memberships_workspace_idx on segment_memberships (workspace_id, segment_id, entered_at);

create table scoring_rules (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  name text not null check (char_length(name) between 1 and 200),
  event_type text not null,
  points integer not null check (points between -1000 and 1000 and points <> 0),
  "where" jsonb, -- metadata conditions, as in segment event conditions
  repeatable boolean not null default true,
  cooldown text, -- ISO 8601 duration as given
  cooldown_seconds integer,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index scoring_rules_workspace_event_idx on scoring_rules (workspace_id, event_type) where active;

create table score_changes (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  contact_id text not null references contacts (id) on delete cascade,
  rule_id text references scoring_rules (id) on delete set null,
  event_id text,
  reason text not null check (reason in ('rule', 'decay', 'merge')),
  previous_score integer not null,
  score integer not null,
  created_at timestamptz not null default now()
);
create index score_changes_contact_idx on score_changes (contact_id, created_at desc);
create index score_changes_rule_contact_idx on score_changes (rule_id, contact_id, created_at desc);

-- Optional per-workspace decay: every `every`, scores move `points` towards zero.
create table scoring_settings (
  workspace_id text primary key references workspaces (id) on delete cascade,
  decay_points integer check (decay_points > 0),
  decay_every text,
  decay_every_seconds integer check (decay_every_seconds > 0),
  last_decay_at timestamptz,
  updated_at timestamptz not null default now()
);

create table campaigns (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  name text not null check (char_length(name) between 1 and 200),
  trigger jsonb not null,
  trigger_event_type text,  -- set when trigger.type = 'event', for matching at ingest
  trigger_segment_id text references segments (id) on delete restrict,
  steps jsonb not null,
  reentry text not null default 'never' check (reentry in ('never', 'after_completion', 'always')),
  status text not null default 'draft' check (status in ('draft', 'active', 'paused', 'archived')),
  activated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index campaigns_event_trigger_idx on campaigns (workspace_id, trigger_event_type) where status = 'active';
create index campaigns_segment_trigger_idx on campaigns (workspace_id, trigger_segment_id) where status = 'active';

create table enrollments (
  workspace_id text not null references workspaces (id) on delete cascade,
  id text not null primary key,
  campaign_id text not null references campaigns (id) on delete cascade,
  contact_id text not null references contacts (id) on delete cascade,
  status text not null default 'active' check (status in ('active', 'completed', 'exited')),
  current_step integer not null default 0,
  trigger_event_id text,
  enrolled_at timestamptz not null default now(),
  completed_at timestamptz
);
create index enrollments_campaign_idx on enrollments (campaign_id, enrolled_at desc);
create index enrollments_contact_campaign_idx on enrollments (contact_id, campaign_id, status);
