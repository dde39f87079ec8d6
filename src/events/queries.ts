// SQL of events: the set-based insert of ingest, lookups by id (replays) and the list.
import { z } from 'zod';
import { type Db, jsonbRows, sql, VoidRow } from '../db/pool.ts';
import { listenedTypesColumn } from '../outbox/emit.ts';
import { cachedDefinitions, DefinitionColumns, definitionColumns, definitionsFor } from './definitions.ts';

export const EventRow = z.object({
  id: z.string(),
  type: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  occurred_at: z.string(),
  contact_id: z.string().nullable(),
  session_id: z.string().nullable(),
  page_url: z.string().nullable(),
  referrer: z.string().nullable(),
  utm_source: z.string().nullable(),
  utm_medium: z.string().nullable(),
  utm_campaign: z.string().nullable(),
  contact_email: z.string().nullable(),
  contact_first_name: z.string().nullable(),
  contact_last_name: z.string().nullable(),
});
export type EventRow = z.infer<typeof EventRow>;

const eventColumns = sql.fragment`
  e.id, e.type, e.metadata, e.occurred_at, e.contact_id, e.session_id, e.page_url, e.referrer,
  e.utm_source, e.utm_medium, e.utm_campaign,
  c.email as contact_email, c.first_name as contact_first_name, c.last_name as contact_last_name`;

export type NewEvent = {
  id: string;
  contact_id: string | null;
  type: string;
  metadata: Record<string, unknown>;
  session_id: string | null;
  page_url: string | null;
  referrer: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  occurred_at: string | null;
};

// Times come through json_agg (in the session's zone), so they are normalised as the pool's
// timestamptz parser would: ISO 8601 UTC with milliseconds.
const Inserted = z.object({
  id: z.string(),
  occurred_at: z.string().transform((at) => new Date(at).toISOString()),
});
const InsertedWithDefinitions = DefinitionColumns.extend({
  inserted: z.array(Inserted),
  listened_types: z.array(z.string()),
});

/**
 * One statement for any number of events: inserts them and reads the definitions the pipeline
 * will apply to them and the outgoing event types some endpoint listens to. Returns each event id
 * with its stored time, the definitions and those types.
 */
export async function insertEvents(db: Db, workspaceId: string, source: string, events: NewEvent[]) {
  const known = cachedDefinitions(workspaceId);
  const { inserted, listened_types, ...columns } = await db.one(sql.prepared(
    'events.insert',
    InsertedWithDefinitions,
  )`
    with inserted as (
      insert into events (workspace_id, id, contact_id, type, metadata, session_id, page_url, referrer,
                          utm_source, utm_medium, utm_campaign, occurred_at, source)
      select ${workspaceId}, r.id, r.contact_id, r.type, r.metadata, r.session_id, r.page_url, r.referrer,
             r.utm_source, r.utm_medium, r.utm_campaign, coalesce(r.occurred_at, now()), ${source}
      from jsonb_to_recordset(${jsonbRows(events)}) as r(
        id text, contact_id text, type text, metadata jsonb, session_id text, page_url text, referrer text,
        utm_source text, utm_medium text, utm_campaign text, occurred_at timestamptz)
      returning id, occurred_at
    )
    select (select coalesce(json_agg(i), '[]') from inserted i) as inserted,
      ${listenedTypesColumn(workspaceId)} as listened_types,
      ${definitionColumns(workspaceId, known)}
    from workspaces w where w.id = ${workspaceId}
  `);
  return {
    inserted,
    listenedTypes: listened_types,
    definitions: definitionsFor(workspaceId, known, columns),
  };
}

/**
 * Gives events another contact: those ingest stored for the contact it planned with, when the
 * contacts it then locked say otherwise (one merged or created meanwhile). Rare; by id.
 */
export async function moveEventsToContacts(
  db: Db,
  workspaceId: string,
  moves: readonly { id: string; contact_id: string | null }[],
) {
  if (moves.length === 0) return;
  await db.query(sql.prepared('events.move_to_contacts', VoidRow)`
    update events e set contact_id = r.contact_id
    from jsonb_to_recordset(${jsonbRows(moves)}) as r(id text, contact_id text)
    where e.workspace_id = ${workspaceId} and e.id = r.id
  `);
}

export async function findEventsByIds(db: Db, workspaceId: string, ids: string[]) {
  return db.any(sql.type(EventRow)`
    select ${eventColumns} from events e left join contacts c on c.workspace_id = e.workspace_id and c.id = e.contact_id
    where e.workspace_id = ${workspaceId} and e.id = any(${sql.array(ids, 'text')})
  `);
}

export type EventFilter = {
  contactId?: string;
  type?: string;
  before?: string;
  after?: EventCursor;
  limit: number;
};

export type EventCursor = { at: string; id: string };

/**
 * Where an event sits in the list's order. The time is PostgreSQL's own text of it: with its
 * microseconds and offset it casts back to the same instant, which a JavaScript Date would not.
 */
export async function findEventCursor(db: Db, workspaceId: string, eventId: string) {
  return db.maybeOne(sql.type(z.object({ at: z.string(), id: z.string() }))`
    select occurred_at::text as at, id from events where workspace_id = ${workspaceId} and id = ${eventId}
  `);
}

/** The list's statement (the partition-pruning test explains it). */
export function listEventsQuery(workspaceId: string, filter: EventFilter) {
  const conditions = [sql.fragment`e.workspace_id = ${workspaceId}`];
  if (filter.contactId) conditions.push(sql.fragment`e.contact_id = ${filter.contactId}`);
  if (filter.type) conditions.push(sql.fragment`e.type = ${filter.type}`);
  if (filter.before) conditions.push(sql.fragment`e.occurred_at < ${filter.before}::timestamptz`);
  if (filter.after) {
    conditions.push(
      sql.fragment`(e.occurred_at, e.id) < (${filter.after.at}::timestamptz, ${filter.after.id})`,
    );
  }
  return sql.type(EventRow)`
    select ${eventColumns} from events e left join contacts c on c.workspace_id = e.workspace_id and c.id = e.contact_id
    where ${sql.join(conditions, sql.fragment` and `)}
    order by e.occurred_at desc, e.id desc
    limit ${filter.limit}
  `;
}

export async function listEvents(db: Db, workspaceId: string, filter: EventFilter) {
  return db.any(listEventsQuery(workspaceId, filter));
}
