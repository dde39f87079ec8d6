// The set-wise merge of an events import, statement by statement over the staging table: rows
// repeated in the file, unknown contactIds, rows imported before (idempotency keys), contacts
// found or created by email or anonymousId, then the events and their outgoing events.
import type { IdentifierSqlToken } from 'slonik';
import { z } from 'zod';
import { sql, type Tx } from '../db/pool.ts';
import { countedIds } from './bulkIds.ts';
import { AFFECTED } from './stagingQueries.ts';

const Count = z.object({ n: z.number() });

/** A later row with the same `id` as an earlier one is the same event. */
export async function markRepeatedKeys(tx: Tx, staging: IdentifierSqlToken) {
  await tx.query(sql.typeAlias('void')`
    update ${staging} s set skip = 'duplicate'
    from (select line, row_number() over (partition by row_key order by line) as nth
          from ${staging} where row_key is not null) d
    where d.line = s.line and d.nth > 1
  `);
}

/** contactId → the contact (or the survivor of a merge, through its alias); unknown ones are refused. */
export async function resolveContactIds(tx: Tx, workspaceId: string, staging: IdentifierSqlToken) {
  await tx.query(sql.typeAlias('void')`
    update ${staging} s set contact_id = r.id,
      skip = case when r.id is null then 'invalid: contactId: no contact in this workspace has this id' end
    from (
      select s.line, coalesce(a.contact_id, c.id) as id from ${staging} s
      left join contact_aliases a
        on a.workspace_id = ${workspaceId} and a.alias_id = s.contact_ref and a.expires_at > now()
      left join contacts c on c.workspace_id = ${workspaceId} and c.id = s.contact_ref
      where s.contact_ref is not null and s.skip is null
    ) r
    where r.line = s.line
  `);
}

/**
 * Claims each row's `id` as an idempotency key of its event; a key claimed before means imported
 * before. The rows imported before are marked first (one hash join with the workspace's keys), then
 * the others' keys are inserted plainly: `on conflict do nothing` probed the key index a second
 * time for each of a million rows (18 s of 1,000,000, against 11.6 s). A key another transaction
 * claims meanwhile fails the import on the primary key, with nothing committed; a re-run skips it.
 */
export async function claimRowKeys(tx: Tx, workspaceId: string, staging: IdentifierSqlToken) {
  await tx.query(sql.typeAlias('void')`
    update ${staging} s set skip = 'already imported'
    from event_idempotency_keys k
    where k.workspace_id = ${workspaceId} and k.key = s.row_key and s.skip is null
  `);
  await tx.query(sql.typeAlias('void')`
    insert into event_idempotency_keys (workspace_id, key, event_id)
    select ${workspaceId}, row_key, event_id from ${staging} where row_key is not null and skip is null
    order by row_key -- in key order, the primary key's index is appended to rather than split at random
  `);
}

/** Who owns an anonymousId: the contact that has it, or the one that kept it from a merge. */
const anonymousOwner = (workspaceId: string, anonymousId: ReturnType<typeof sql.identifier>) => sql.fragment`
  coalesce(
    (select own.id from contacts own where own.workspace_id = ${workspaceId} and own.anonymous_id = ${anonymousId}),
    (select k.contact_id from contact_anonymous_ids k
     where k.workspace_id = ${workspaceId} and k.anonymous_id = ${anonymousId}))`;

/** The contacts an events import will create, planned before its events (createPlannedContacts). */
export const PLANNED = sql.identifier(['import_new_contacts']);

/** A contact the import plans with this anonymousId (its owner once created). */
const plannedOwner = (anonymousId: ReturnType<typeof sql.identifier>) => sql.fragment`
  (select n.id from ${PLANNED} n where n.anonymous_id = ${anonymousId})`;

/**
 * Plans the contacts no row finds: one per new email (names, phone and anonymousId from its first
 * row; an anonymousId someone else has stays theirs), then one per new anonymousId of rows without
 * an email. Each key's first row is found by hashing the keys (min(line) per key), not by sorting
 * the million rows (4.7 → 3.1 s). They are created after the scores (createPlannedContacts), with
 * their final score: creating them first and scoring them after wrote each contact twice (100,000
 * contacts, 2.5 s of updates).
 */
export async function planNewContacts(
  tx: Tx,
  workspaceId: string,
  staging: IdentifierSqlToken,
  by: 'email' | 'anonymous_id',
): Promise<number> {
  const key = sql.identifier(['s', by]);
  const rows =
    by === 'email'
      ? sql.fragment`s.email is not null`
      : sql.fragment`s.email is null and s.anonymous_id is not null`;
  const owner = (anonymousId: ReturnType<typeof sql.identifier>) =>
    sql.fragment`coalesce(${anonymousOwner(workspaceId, anonymousId)}, ${plannedOwner(anonymousId)})`;
  // Tested once per distinct key, after the distinct, rather than once per row of the file.
  const missing =
    by === 'email'
      ? sql.fragment`not exists (select 1 from contacts c where c.workspace_id = ${workspaceId} and c.email = f.email)`
      : sql.fragment`${owner(sql.identifier(['f', 'anonymous_id']))} is null`;
  const planned = await tx.oneFirst(sql.type(Count)`
    with firsts as (
      select s.line, s.email, s.anonymous_id, s.first_name, s.last_name, s.phone from ${staging} s
      join (select min(s.line) as line from ${staging} s
            where s.contact_ref is null and s.skip is null and ${rows} group by ${key}) f on f.line = s.line
    ), fresh as (
      select f.*, case when f.anonymous_id is not null
          and row_number() over (partition by f.anonymous_id order by f.line) = 1
          and ${owner(sql.identifier(['f', 'anonymous_id']))} is null
        then f.anonymous_id end as free_anonymous_id
      from firsts f where ${missing}
    ), planned as (
      insert into ${PLANNED} (id, created_outbox_id, email, first_name, last_name, phone, anonymous_id)
      select ${countedIds('contact')(sql.fragment`line`)}, ${countedIds('outgoingEvent')(sql.fragment`line`)},
        email, first_name, last_name, phone, free_anonymous_id from fresh
      returning id
    ), affected as (
      insert into ${AFFECTED} (contact_id, created) select id, true from planned
    )
    select count(*)::int as n from planned
  `);
  await tx.query(sql.typeAlias('void')`analyze ${PLANNED}`);
  return planned;
}

export async function createPlanTable(tx: Tx) {
  await tx.query(sql.typeAlias('void')`
    create temporary table import_new_contacts (
      id text primary key, created_outbox_id text not null, email text, first_name text, last_name text,
      phone text, anonymous_id text unique
    ) on commit drop
  `);
  // Their scores once the imported events have moved them (writeFiredScores): appended, not updated.
  await tx.query(sql.typeAlias('void')`
    create temporary table import_planned_scores (contact_id text not null, score int not null) on commit drop
  `);
}

export const PLANNED_SCORES = sql.identifier(['import_planned_scores']);

/**
 * Creates the planned contacts with their scores, in id order (appended to the primary key), and
 * their contact.created when someone listens. Returns how many could not be: someone created a
 * contact with the same email or anonymousId since they were planned (the import must refuse).
 */
export async function createPlannedContacts(tx: Tx, workspaceId: string, emit: boolean): Promise<number> {
  return tx.oneFirst(sql.type(Count)`
    with inserted as (
      insert into contacts (workspace_id, id, email, first_name, last_name, phone, anonymous_id, lead_score)
      select ${workspaceId}, n.id, n.email, n.first_name, n.last_name, n.phone, n.anonymous_id,
        coalesce(p.score, 0)
      from ${PLANNED} n left join ${PLANNED_SCORES} p on p.contact_id = n.id
      order by n.id
      on conflict do nothing
      returning id, email, first_name, last_name
    ), emitted as (
      insert into outgoing_events (id, workspace_id, type, data)
      select n.created_outbox_id, ${workspaceId}, 'contact.created', jsonb_build_object(
        'contactId', i.id, 'email', i.email, 'firstName', i.first_name, 'lastName', i.last_name)
      from inserted i join ${PLANNED} n on n.id = i.id
      where ${emit}
    )
    select ((select count(*) from ${PLANNED}) - (select count(*) from inserted))::int as n
  `);
}

export const IMPORTED = sql.identifier(['import_events']);

/**
 * The rows to import with their contacts (contactId, else email, else anonymousId) in a temporary
 * table, in the order of their ids, i.e. of their times: the events are inserted in that order,
 * and the scores and segments read this narrow table rather than the staging table. Built once by
 * one statement: setting each staging row's contact by an update wrote every row a second time.
 */
export async function resolveImportedEvents(tx: Tx, workspaceId: string, staging: IdentifierSqlToken) {
  await tx.query(sql.typeAlias('void')`
    create temporary table import_events on commit drop as
    select s.line, s.event_id, s.type, s.metadata, coalesce(s.occurred_at, now()) as occurred_at,
      case when s.contact_ref is not null then s.contact_id
           when s.email is not null then coalesce(c.id, n.id)
           when s.anonymous_id is not null then coalesce(
             ${anonymousOwner(workspaceId, sql.identifier(['s', 'anonymous_id']))},
             ${plannedOwner(sql.identifier(['s', 'anonymous_id']))})
      end as contact_id,
      s.session_id, s.page_url, s.referrer, s.utm_source, s.utm_medium, s.utm_campaign
    from ${staging} s
    left join contacts c on s.contact_ref is null and c.workspace_id = ${workspaceId} and c.email = s.email
    left join ${PLANNED} n on s.contact_ref is null and n.email = s.email
    where s.skip is null
    order by s.event_id
  `);
}

/**
 * Records the contacts the events go to (the side effects walk them) and locks them FOR KEY SHARE
 * in id order, as ingest locks its contacts, until the import commits: no erasure or merge can take
 * one away before then. This stands for the events' foreign key to contacts (sql/0034), which
 * checked and locked the contact once per event (~7.8 s of a million events' insert; this ~0.3 s).
 * Returns how many are gone already (deleted or merged since the rows were matched): the import
 * must then refuse, as the key's check would have failed it.
 */
export async function lockEventContacts(tx: Tx, workspaceId: string): Promise<number> {
  await tx.query(sql.typeAlias('void')`
    insert into ${AFFECTED} (contact_id, created)
    select distinct contact_id, false from ${IMPORTED} where contact_id is not null
    on conflict do nothing
  `);
  return tx.oneFirst(sql.type(Count)`
    with locked as (
      select id from contacts
      where workspace_id = ${workspaceId} and id in (select contact_id from ${AFFECTED} where not created)
      order by id for key share
    )
    select ((select count(*) from ${AFFECTED} where not created) - (select count(*) from locked))::int as n
  `);
}

/** The events themselves and event.tracked for each when someone listens (lockEventContacts first). */
export async function insertEvents(tx: Tx, workspaceId: string, emit: boolean) {
  // import_events is read in the order it was written (its ids' order): no sort needed.
  await tx.query(sql.typeAlias('void')`
    insert into events (workspace_id, id, contact_id, type, metadata, session_id, page_url, referrer,
                        utm_source, utm_medium, utm_campaign, occurred_at, source)
    select ${workspaceId}, event_id, contact_id, type, metadata, session_id, page_url, referrer,
           utm_source, utm_medium, utm_campaign, occurred_at, 'batch'
    from ${IMPORTED}
  `);
  if (emit) {
    await tx.query(sql.typeAlias('void')`
      insert into outgoing_events (id, workspace_id, type, data)
      select ${countedIds('outgoingEvent')(sql.fragment`line`)}, ${workspaceId}, 'event.tracked',
        jsonb_build_object('contactId', contact_id, 'eventType', type, 'metadata', metadata)
      from ${IMPORTED}
    `);
  }
  await tx.query(sql.typeAlias('void')`create index on ${IMPORTED} (contact_id)`);
  // Statistics of what the pages of contacts select on (metadata's are the costly ones to gather).
  await tx.query(sql.typeAlias('void')`analyze ${IMPORTED} (contact_id, type)`);
}

export async function importedTypes(tx: Tx): Promise<string[]> {
  return [
    ...(await tx.anyFirst(sql.type(z.object({ type: z.string() }))`
      select distinct type from ${IMPORTED}
    `)),
  ];
}

const StagedEvent = z.object({
  id: z.string(),
  contactId: z.string(),
  type: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  occurredAt: z.string(),
});

/** The imported events of these contacts and types, in the order they happened. */
export async function stagedEvents(tx: Tx, contactIds: string[], types: string[]) {
  const rows = await tx.any(sql.type(StagedEvent)`
    select event_id as id, contact_id as "contactId", type, metadata, occurred_at as "occurredAt"
    from ${IMPORTED}
    where contact_id = any(${sql.array(contactIds, 'text')}) and type = any(${sql.array(types, 'text')})
    order by occurred_at, line
  `);
  return [...rows];
}
