// Set-based contact SQL for ingest: one statement finds (and locks) every contact a batch names,
// one statement creates the missing ones.
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { type Db, jsonbRows, sql } from '../db/pool.ts';
import { ContactRow, contactColumns } from './queries.ts';

export type Identifiers = { ids: string[]; emails: string[]; anonymousIds: string[] };

const HowFound = z.object({
  requested_id: z.string().nullable(),
  kept_anonymous_ids: z.array(z.string()).nullable(),
});
const FoundRow = ContactRow.extend(HowFound.shape);
export type FoundContact = z.infer<typeof FoundRow>;

/** What identifies a contact, and how it was found: all ingest plans with (findContactsUnlocked). */
const FoundKeys = ContactRow.pick({ id: true, email: true, anonymous_id: true }).extend(HowFound.shape);
export type FoundContactKeys = z.infer<typeof FoundKeys>;

/**
 * Every contact named by id (or by a live merge alias), email or anonymousId (its own, or one it
 * kept from a merge), locked in id order so that concurrent requests for the same contacts queue
 * instead of deadlocking. `requested_id` is the alias that led to the row, when one did;
 * `kept_anonymous_ids` the requested anonymousIds it kept from merges. `no key update`: ingest
 * never changes a contact's id, so rows that merely reference the contact (a segment refresh or
 * another feature adding a membership, an enrollment) go ahead instead of queueing behind it;
 * deleting or merging the contact still waits.
 */
export async function findAndLockContacts(db: Db, workspaceId: string, identifiers: Identifiers) {
  return db.any(sql.prepared('contacts.find_and_lock', FoundRow)`
    ${findContactsSql(workspaceId, identifiers, contactColumns)}
    for no key update of c
  `);
}

/**
 * The same contacts, read without a lock and only what identifies them: what ingest plans with
 * before it locks them. Anything may change them before the lock; the plan is checked against
 * what the lock finds. (Parsing whole rows twice cost a tenth of a batch's time in Node.)
 */
export async function findContactsUnlocked(db: Db, workspaceId: string, identifiers: Identifiers) {
  return db.any(sql.prepared('contacts.find_unlocked', FoundKeys)`
    ${findContactsSql(workspaceId, identifiers, sql.fragment`c.id, c.email, c.anonymous_id`)}
  `);
}

/**
 * These contacts by id, locked in id order as findAndLockContacts locks them: ingest's lock when
 * its lock-free look (findContactsUnlocked) found them, by primary key instead of again by every
 * identifier. A row deleted meanwhile is missing from the result.
 */
export async function lockContactsById(db: Db, workspaceId: string, ids: readonly string[]) {
  return db.any(sql.prepared('contacts.lock_by_id', ContactRow)`
    select ${contactColumns} from contacts c
    where c.workspace_id = ${workspaceId} and c.id = any(${sql.array([...ids], 'text')})
    order by c.id
    for no key update of c
  `);
}

function findContactsSql(workspaceId: string, identifiers: Identifiers, columns: FragmentSqlToken) {
  const ids = sql.array(identifiers.ids, 'text');
  const anonymousIds = sql.array(identifiers.anonymousIds, 'text');
  // One index lookup per identifier kind (a single OR across them scans the table).
  return sql.fragment`
    with aliases as (
      select alias_id, contact_id from contact_aliases
      where workspace_id = ${workspaceId} and alias_id = any(${ids}) and expires_at > now()
    ), wanted as (
      select id from contacts where workspace_id = ${workspaceId} and id = any(${ids})
      union select contact_id from aliases
      union select id from contacts
        where workspace_id = ${workspaceId} and email = any(${sql.array(identifiers.emails, 'text')})
      union select id from contacts
        where workspace_id = ${workspaceId} and anonymous_id = any(${anonymousIds})
      union select contact_id from contact_anonymous_ids
        where workspace_id = ${workspaceId} and anonymous_id = any(${anonymousIds})
    )
    select ${columns}, a.alias_id as requested_id,
      case when cardinality(${anonymousIds}) > 0 then (
        select array_agg(k.anonymous_id) from contact_anonymous_ids k
        where k.workspace_id = c.workspace_id and k.contact_id = c.id and k.anonymous_id = any(${anonymousIds})
      ) end as kept_anonymous_ids
    from contacts c left join aliases a on a.contact_id = c.id
    where c.workspace_id = ${workspaceId} and c.id in (select id from wanted)
    order by c.id`;
}

export type NewContact = {
  id: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  anonymous_id: string | null;
};

/** Inserts the contacts; one that lost a race for its email or anonymousId is skipped. */
export async function insertContactsSkippingTaken(db: Db, workspaceId: string, contacts: NewContact[]) {
  return db.any(sql.prepared('contacts.insert_skipping_taken', ContactRow)`
    insert into contacts as c (workspace_id, id, email, first_name, last_name, phone, anonymous_id)
    select ${workspaceId}, r.id, r.email, r.first_name, r.last_name, r.phone, r.anonymous_id
    from jsonb_to_recordset(${jsonbRows(contacts)})
      as r(id text, email text, first_name text, last_name text, phone text, anonymous_id text)
    on conflict do nothing
    returning ${contactColumns}
  `);
}
