// SQL of contacts: lookups (honouring merge aliases), writes and the paginated list.
import { z } from 'zod';
import { identifiedContact } from '../channels/index.ts';
import { pageWindow, selectPage } from '../db/paginate.ts';
import { type Db, sql } from '../db/pool.ts';

export const ContactRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  email: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  phone: z.string().nullable(),
  anonymous_id: z.string().nullable(),
  attributes: z.record(z.string(), z.unknown()),
  lead_score: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ContactRow = z.infer<typeof ContactRow>;

export const contactColumns = sql.fragment`
  c.id, c.workspace_id, c.email, c.first_name, c.last_name, c.phone, c.anonymous_id, c.attributes,
  c.lead_score, c.created_at, c.updated_at`;

/** The id a contact id stands for now: itself, or the primary it was merged into (30 days). */
// The subquery names the workspace itself: correlated with c.workspace_id it was evaluated for
// every contact of the workspace, a sequential scan of it (3.6 s at a million contacts).
const resolvedId = (workspaceId: string, contactId: string) => sql.fragment`
  coalesce(
    (select a.contact_id from contact_aliases a
     where a.alias_id = ${contactId} and a.workspace_id = ${workspaceId} and a.expires_at > now()),
    ${contactId})`;

/** The contact by its id or a merged-away id of it (plan tests explain it). */
export function findContactQuery(workspaceId: string, contactId: string, options: { lock?: boolean } = {}) {
  return sql.type(ContactRow)`
    select ${contactColumns} from contacts c
    where c.workspace_id = ${workspaceId} and c.id = ${resolvedId(workspaceId, contactId)}
    ${options.lock ? sql.fragment`for update` : sql.fragment``}
  `;
}

export async function findContact(
  db: Db,
  workspaceId: string,
  contactId: string,
  options: { lock?: boolean } = {},
): Promise<ContactRow | null> {
  const find = () => db.maybeOne(findContactQuery(workspaceId, contactId, options));
  const found = await find();
  // A merge holding the lock deletes the row the statement waited for, and the alias it commits is
  // newer than the statement's snapshot: a second statement sees it and finds the survivor.
  return found === null && options.lock ? find() : found;
}

export async function findContactByEmail(db: Db, workspaceId: string, email: string) {
  return db.maybeOne(sql.type(ContactRow)`
    select ${contactColumns} from contacts c where c.workspace_id = ${workspaceId} and c.email = ${email}
    for update
  `);
}

/** The contact whose anonymousId this is, or that kept it from a contact merged into it. */
export async function findContactByAnonymousId(db: Db, workspaceId: string, anonymousId: string) {
  return db.maybeOne(sql.type(ContactRow)`
    select ${contactColumns} from contacts c
    where c.workspace_id = ${workspaceId} and c.id = coalesce(
      (select own.id from contacts own
       where own.workspace_id = ${workspaceId} and own.anonymous_id = ${anonymousId}),
      (select k.contact_id from contact_anonymous_ids k
       where k.workspace_id = ${workspaceId} and k.anonymous_id = ${anonymousId}))
    for update
  `);
}

/**
 * The contact an anonymousId names (its own, or kept from a merge) and whether it is identified
 * (identifiedContact). With `lock`, the row is locked: a merge or an identify of it waits until the
 * caller commits, so what the caller decides from `identified` stays true while it acts.
 */
export async function findAnonymousIdOwner(
  db: Db,
  workspaceId: string,
  anonymousId: string,
  options: { lock?: boolean } = {},
) {
  return db.maybeOne(sql.type(z.object({ id: z.string(), identified: z.boolean() }))`
    select c.id, ${identifiedContact(sql.fragment`c`)} as identified from contacts c
    where c.workspace_id = ${workspaceId} and c.id = coalesce(
      (select own.id from contacts own
       where own.workspace_id = ${workspaceId} and own.anonymous_id = ${anonymousId}),
      (select k.contact_id from contact_anonymous_ids k
       where k.workspace_id = ${workspaceId} and k.anonymous_id = ${anonymousId}))
    ${options.lock ? sql.fragment`for update of c` : sql.fragment``}
  `);
}

/** Whether a contact kept this anonymousId from a merge (it may not be given to another one). */
export async function anonymousIdKept(
  db: Db,
  workspaceId: string,
  anonymousId: string,
  exceptContactId = '',
) {
  return db.exists(sql.unsafe`
    select 1 from contact_anonymous_ids
    where workspace_id = ${workspaceId} and anonymous_id = ${anonymousId} and contact_id <> ${exceptContactId}
  `);
}

export type ContactFields = {
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  anonymousId?: string | null;
};

export async function insertContact(
  db: Db,
  input: ContactFields & { id: string; workspaceId: string; attributes?: Record<string, unknown> },
): Promise<ContactRow> {
  return db.one(sql.type(ContactRow)`
    insert into contacts as c (id, workspace_id, email, first_name, last_name, phone, anonymous_id, attributes)
    values (${input.id}, ${input.workspaceId}, ${input.email ?? null}, ${input.firstName ?? null},
            ${input.lastName ?? null}, ${input.phone ?? null}, ${input.anonymousId ?? null},
            ${sql.jsonb((input.attributes ?? {}) as never)})
    returning ${contactColumns}
  `);
}

const FIELD_COLUMNS = {
  email: 'email',
  firstName: 'first_name',
  lastName: 'last_name',
  phone: 'phone',
  anonymousId: 'anonymous_id',
} as const;

/** Sets the given fields; attribute keys are merged and null values remove the key. */
export async function updateContact(
  db: Db,
  workspaceId: string,
  contactId: string,
  fields: ContactFields,
  attributes?: Record<string, unknown>,
): Promise<ContactRow> {
  const sets = Object.entries(FIELD_COLUMNS)
    .filter(([field]) => fields[field as keyof ContactFields] !== undefined)
    .map(
      ([field, column]) =>
        sql.fragment`${sql.identifier([column])} = ${fields[field as keyof ContactFields] ?? null}`,
    );
  if (attributes) {
    // Only top-level keys set to null are removed; nulls nested inside values are data.
    const removed = Object.keys(attributes).filter((key) => attributes[key] === null);
    const kept = Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== null));
    sets.push(
      sql.fragment`attributes = (c.attributes || ${sql.jsonb(kept as never)}) - ${sql.array(removed, 'text')}`,
    );
  }
  sets.push(sql.fragment`updated_at = now()`);
  return db.one(sql.type(ContactRow)`
    update contacts as c set ${sql.join(sets, sql.fragment`, `)}
    where c.workspace_id = ${workspaceId} and c.id = ${contactId}
    returning ${contactColumns}
  `);
}

export async function deleteContactRow(db: Db, workspaceId: string, contactId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    delete from contacts where workspace_id = ${workspaceId} and id = ${contactId}
  `);
}

export type ContactFilter = { email?: string; q?: string; segmentId?: string };

function likePattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

function filterConditions(workspaceId: string, filter: ContactFilter) {
  const conditions = [sql.fragment`c.workspace_id = ${workspaceId}`];
  if (filter.email) conditions.push(sql.fragment`c.email = ${filter.email}`);
  if (filter.q) {
    const pattern = likePattern(filter.q);
    conditions.push(sql.fragment`(c.email ilike ${pattern} or c.first_name ilike ${pattern}
      or c.last_name ilike ${pattern} or (c.first_name || ' ' || c.last_name) ilike ${pattern})`);
  }
  if (filter.segmentId) {
    conditions.push(sql.fragment`exists (select 1 from segment_memberships m
      where m.segment_id = ${filter.segmentId} and m.contact_id = c.id and m.workspace_id = c.workspace_id)`);
  }
  return sql.join(conditions, sql.fragment` and `);
}

export async function listContacts(
  db: Db,
  workspaceId: string,
  filter: ContactFilter,
  page: { page: number; limit: number },
) {
  return selectPage(
    db,
    ContactRow,
    {
      columns: contactColumns,
      from: sql.fragment`contacts c`,
      where: filterConditions(workspaceId, filter),
      orderBy: sql.fragment`c.created_at desc, c.id desc`,
    },
    pageWindow(page),
  );
}

/**
 * Whether the workspace has the segment. `hold` keeps it (key share) for the rest of the caller's
 * transaction: a campaign that is about to name it must not see it deleted before it commits.
 */
export async function segmentExists(
  db: Db,
  workspaceId: string,
  segmentId: string,
  options: { hold?: boolean } = {},
): Promise<boolean> {
  return db.exists(sql.unsafe`
    select 1 from segments where workspace_id = ${workspaceId} and id = ${segmentId}
    ${options.hold ? sql.fragment`for key share` : sql.fragment``}
  `);
}
