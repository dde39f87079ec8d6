-- Keys that lead with workspace_id, so the schema can be distributed by workspace (Citus: README,
-- "Scale-out"). A distributed table's primary and unique keys must contain its distribution column,
-- and a foreign key between two distributed tables must include it on both sides, so that every
-- check stays inside one shard. So every workspace-owned table's primary key becomes
-- (workspace_id, id), its unique keys start with workspace_id, and its foreign keys to another
-- workspace-owned table become (workspace_id, x_id) → (workspace_id, id). Foreign keys to workspaces
-- (distributed by its id, which is every other table's workspace_id) and to users (a reference
-- table) stay as they are. test/foundation/distributionKeys.test.ts reads the catalog and holds
-- every table, today's and tomorrow's, to this.
--
-- Keys that were globally unique by themselves (API keys and publishable keys by their value) keep
-- a plain index for the lookup; their uniqueness is that of 32 random bytes.
--
-- `on delete set null (column)` (PostgreSQL 15) nulls only the reference, never workspace_id. Every
-- foreign key keeps its action on delete (test/foundation/workspaceKeysMigration.test.ts).
-- Tables added by migrations 0019-0026 are altered `if exists`: this file also applies where some of
-- them are absent.

-- 1. Foreign keys that point at a key about to change (they depend on its index).
alter table contact_aliases drop constraint contact_aliases_contact_id_fkey;
alter table events drop constraint events_contact_id_fkey; -- events are rebuilt by 0031
alter table segment_memberships
  drop constraint segment_memberships_contact_id_fkey,
  drop constraint segment_memberships_segment_id_fkey;
alter table score_changes drop constraint score_changes_contact_id_fkey;
alter table campaigns drop constraint campaigns_trigger_segment_id_fkey;
alter table enrollments
  drop constraint enrollments_campaign_id_fkey,
  drop constraint enrollments_contact_id_fkey;
alter table contact_anonymous_ids drop constraint contact_anonymous_ids_contact_id_fkey;
alter table webhook_messages drop constraint webhook_messages_endpoint_id_fkey;
alter table webhook_attempts drop constraint webhook_attempts_message_id_fkey;
alter table webhook_deliveries drop constraint webhook_deliveries_endpoint_id_fkey;
alter table messages
  drop constraint messages_contact_id_fkey,
  drop constraint messages_enrollment_id_fkey;
alter table message_idempotency_keys drop constraint message_idempotency_keys_message_id_fkey;
alter table message_events drop constraint message_events_message_id_fkey;
alter table contact_subscriptions drop constraint contact_subscriptions_contact_id_fkey;
alter table email_feedback_receipts drop constraint email_feedback_receipts_endpoint_id_fkey;
alter table email_soft_bounce_streaks drop constraint email_soft_bounce_streaks_contact_id_fkey;
alter table if exists message_hits drop constraint message_hits_message_id_fkey;
alter table if exists form_submissions
  drop constraint form_submissions_form_id_fkey,
  drop constraint form_submissions_contact_id_fkey;
alter table if exists push_subscriptions drop constraint push_subscriptions_contact_id_fkey;
alter table if exists telegram_chats drop constraint telegram_chats_contact_id_fkey;
alter table if exists telegram_link_tokens drop constraint telegram_link_tokens_contact_id_fkey;

-- 2. Primary and unique keys.
alter table api_keys
  drop constraint api_keys_pkey,
  add primary key (workspace_id, id),
  drop constraint api_keys_key_hash_key;
create index api_keys_key_hash_idx on api_keys (key_hash); -- authentication finds a key by its hash

alter table outgoing_events drop constraint outgoing_events_pkey, add primary key (workspace_id, id);
alter table contacts drop constraint contacts_pkey, add primary key (workspace_id, id);
alter table contact_aliases drop constraint contact_aliases_pkey, add primary key (workspace_id, alias_id);
alter table segments drop constraint segments_pkey, add primary key (workspace_id, id);
alter table segment_memberships
  drop constraint segment_memberships_pkey,
  add primary key (workspace_id, segment_id, contact_id);
alter table scoring_rules drop constraint scoring_rules_pkey, add primary key (workspace_id, id);
alter table score_changes drop constraint score_changes_pkey, add primary key (workspace_id, id);
alter table campaigns drop constraint campaigns_pkey, add primary key (workspace_id, id);
alter table enrollments drop constraint enrollments_pkey, add primary key (workspace_id, id);
alter table webhook_endpoints drop constraint webhook_endpoints_pkey, add primary key (workspace_id, id);
alter table webhook_messages
  drop constraint webhook_messages_pkey,
  add primary key (workspace_id, id),
  drop constraint webhook_messages_endpoint_event_key,
  add constraint webhook_messages_endpoint_event_key unique (workspace_id, endpoint_id, outgoing_event_id);
alter table webhook_attempts drop constraint webhook_attempts_pkey, add primary key (workspace_id, id);
alter table webhook_deliveries drop constraint webhook_deliveries_pkey, add primary key (workspace_id, id);
drop index webhook_deliveries_inbound_dedupe_key;
create unique index webhook_deliveries_inbound_dedupe_key
  on webhook_deliveries (workspace_id, endpoint_id, idempotency_key) where success and idempotency_key is not null;
alter table invitations drop constraint invitations_pkey, add primary key (workspace_id, id);
alter table messages drop constraint messages_pkey, add primary key (workspace_id, id);
alter table message_events drop constraint message_events_pkey, add primary key (workspace_id, id);
alter table email_feedback_endpoints drop constraint email_feedback_endpoints_pkey, add primary key (workspace_id, id);
alter table email_feedback_receipts drop constraint email_feedback_receipts_pkey, add primary key (workspace_id, id);
alter table if exists message_hits drop constraint message_hits_pkey, add primary key (workspace_id, id);
alter table if exists publishable_keys
  drop constraint publishable_keys_pkey,
  add primary key (workspace_id, id),
  drop constraint publishable_keys_key_key;
do $$ begin
  if to_regclass('publishable_keys') is not null then
    create index publishable_keys_key_idx on publishable_keys (key); -- the public routes find a key by its value
  end if;
end $$;
alter table if exists forms drop constraint forms_pkey, add primary key (workspace_id, id);
alter table if exists form_submissions drop constraint form_submissions_pkey, add primary key (workspace_id, id);
alter table if exists push_subscriptions drop constraint push_subscriptions_pkey, add primary key (workspace_id, id);

-- 3. Foreign keys between workspace-owned tables, through workspace_id.
alter table contact_aliases add constraint contact_aliases_contact_id_fkey
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade;
alter table segment_memberships
  add constraint segment_memberships_contact_id_fkey
    foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade,
  add constraint segment_memberships_segment_id_fkey
    foreign key (workspace_id, segment_id) references segments (workspace_id, id) on delete cascade;
alter table score_changes add constraint score_changes_contact_id_fkey
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade;
alter table campaigns add constraint campaigns_trigger_segment_id_fkey
  foreign key (workspace_id, trigger_segment_id) references segments (workspace_id, id) on delete restrict;
alter table enrollments
  add constraint enrollments_campaign_id_fkey
    foreign key (workspace_id, campaign_id) references campaigns (workspace_id, id) on delete cascade,
  add constraint enrollments_contact_id_fkey
    foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade;
alter table contact_anonymous_ids add constraint contact_anonymous_ids_contact_id_fkey
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade;
alter table webhook_messages add constraint webhook_messages_endpoint_id_fkey
  foreign key (workspace_id, endpoint_id) references webhook_endpoints (workspace_id, id) on delete cascade;
alter table webhook_attempts add constraint webhook_attempts_message_id_fkey
  foreign key (workspace_id, message_id) references webhook_messages (workspace_id, id) on delete cascade;
alter table webhook_deliveries add constraint webhook_deliveries_endpoint_id_fkey
  foreign key (workspace_id, endpoint_id) references webhook_endpoints (workspace_id, id) on delete cascade;
alter table messages
  add constraint messages_contact_id_fkey
    foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade,
  add constraint messages_enrollment_id_fkey
    foreign key (workspace_id, enrollment_id) references enrollments (workspace_id, id)
    on delete set null (enrollment_id);
alter table message_idempotency_keys add constraint message_idempotency_keys_message_id_fkey
  foreign key (workspace_id, message_id) references messages (workspace_id, id)
  on delete cascade deferrable initially deferred;
alter table message_events add constraint message_events_message_id_fkey
  foreign key (workspace_id, message_id) references messages (workspace_id, id) on delete cascade;
alter table contact_subscriptions add constraint contact_subscriptions_contact_id_fkey
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade;
alter table email_feedback_receipts add constraint email_feedback_receipts_endpoint_id_fkey
  foreign key (workspace_id, endpoint_id) references email_feedback_endpoints (workspace_id, id) on delete cascade;
alter table email_soft_bounce_streaks add constraint email_soft_bounce_streaks_contact_id_fkey
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade;
alter table if exists message_hits add constraint message_hits_message_id_fkey
  foreign key (workspace_id, message_id) references messages (workspace_id, id) on delete cascade;
alter table if exists form_submissions
  add constraint form_submissions_form_id_fkey
    foreign key (workspace_id, form_id) references forms (workspace_id, id) on delete cascade,
  add constraint form_submissions_contact_id_fkey
    foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade;
alter table if exists push_subscriptions add constraint push_subscriptions_contact_id_fkey
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade;
alter table if exists telegram_chats add constraint telegram_chats_contact_id_fkey
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade;
alter table if exists telegram_link_tokens add constraint telegram_link_tokens_contact_id_fkey
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade;

-- 4. Lookups by id alone, where the caller knows nothing else: the public receivers (inbound
-- webhooks, provider feedback) have only the endpoint id of their URL, hosted forms and their
-- confirmation links only the form's or the submission's, tracking links only the message's, and
-- the jobs that send a message or run a campaign step carry only its id. Plain indexes keep those
-- lookups as cheap as the old primary keys made them (not unique: the primary keys are the identity).
create index webhook_endpoints_id_idx on webhook_endpoints (id);
create index email_feedback_endpoints_id_idx on email_feedback_endpoints (id);
create index messages_id_idx on messages (id);
create index enrollments_id_idx on enrollments (id);
do $$ begin
  if to_regclass('forms') is not null then
    create index forms_id_idx on forms (id);
    create index form_submissions_id_idx on form_submissions (id);
  end if;
end $$;
