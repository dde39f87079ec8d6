// What the template editor lists as the variables a template may use, read from samples so that
// it costs the same at a million contacts: the attribute names of the newest contacts, and the
// metadata names of the trigger's latest events. A name only older rows carry is not listed (the
// editor says so); a template may use it all the same.
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

/** How many of the newest contacts, and of the trigger's latest events, are read for names. */
export const NAME_SAMPLE = 500;
/** At most this many names of each are listed. */
const NAMES_SHOWN = 100;

const Name = z.object({ name: z.string() });

/** The distinct keys of the jsonb objects `rows` selects (as `value`), sorted, at most NAMES_SHOWN. */
async function keysOf(db: Db, rows: FragmentSqlToken): Promise<readonly string[]> {
  return db.anyFirst(sql.type(Name)`
    select distinct jsonb_object_keys(r.value) as name from (${rows}) r
    where jsonb_typeof(r.value) = 'object'
    order by name limit ${NAMES_SHOWN}
  `);
}

/** The attribute names of the workspace's newest contacts (contacts_workspace_created_idx), sorted. */
export function attributeNamesSeen(db: Db, workspaceId: string): Promise<readonly string[]> {
  return keysOf(
    db,
    sql.fragment`select attributes as value from contacts where workspace_id = ${workspaceId}
      order by created_at desc, id desc limit ${NAME_SAMPLE}`,
  );
}

/** The metadata names of the latest events of `type` (events_workspace_type_time_idx), sorted. */
export function eventMetadataNamesSeen(
  db: Db,
  workspaceId: string,
  type: string,
): Promise<readonly string[]> {
  return keysOf(
    db,
    sql.fragment`select metadata as value from events where workspace_id = ${workspaceId} and type = ${type}
      order by occurred_at desc limit ${NAME_SAMPLE}`,
  );
}

/** The contact's latest event of `type` (events_contact_type_time_idx): what a preview renders with. */
export async function latestEventOf(
  db: Db,
  workspaceId: string,
  contactId: string,
  type: string,
): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    select id from events where contact_id = ${contactId} and type = ${type} and workspace_id = ${workspaceId}
    order by occurred_at desc limit 1
  `);
}
