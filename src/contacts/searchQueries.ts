// The console's contact list: search, filters, four sorts, keyset paging and a capped count.
// Unlike the API's list (queries.ts: page numbers and an exact total), a page here costs the same
// at any depth (the position travels as a cursor) and the count stops at COUNT_CAP: past it the
// page says "more than 10,000", never a wrong number, and never a count over a million rows.
//
// Search `q` matches a substring of the email, the name (first, last, or both) or the phone,
// through the trigram index of migration 0045 on lower(searchable text); an attribute filter
// (name = value) uses the jsonb containment index of the same migration.
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { ContactRow, contactColumns } from './queries.ts';

export const COUNT_CAP = 10_000;

/**
 * Each sort walks an index, so a page costs the same at any depth and any size. No "highest score"
 * sort: it would need an index on contacts.lead_score, which every scored event would then have to
 * update (0008_ingest_write_path.sql dropped it so those updates stay HOT); the score range filter
 * stands in (non-zero scores are indexed beside the contacts: sql/0056). The email sort uses the unique index of emails, so it lists contacts that have one.
 */
export const CONTACT_SORTS = ['newest', 'oldest', 'email'] as const;
export type ContactSort = (typeof CONTACT_SORTS)[number];

export type ContactSearch = {
  q?: string;
  attribute?: { name: string; value: string };
  segmentId?: string;
  scoreMin?: number;
  scoreMax?: number;
  /** Contacts who may (subscribed) or may not (unsubscribed) receive on the channel. */
  subscription?: { channel: 'email' | 'push' | 'telegram'; status: 'subscribed' | 'unsubscribed' };
};

/** The cursor of each sort: the values after which the next page starts. */
export const CURSORS = {
  newest: z.tuple([z.string()]),
  oldest: z.tuple([z.string()]),
  email: z.tuple([z.string()]),
} satisfies Record<ContactSort, z.ZodType>;

export type Cursor = z.infer<(typeof CURSORS)[ContactSort]>;

/** The text search matches: the expression indexed by contacts_search_trgm_idx (0045). */
const SEARCH_TEXT = sql.fragment`lower(coalesce(c.email, '') || ' ' || coalesce(c.first_name, '') || ' ' || coalesce(c.last_name, '') || ' ' || coalesce(c.phone, ''))`;

function likePattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * The search text's condition. The trigram index finds rows through every trigram of the pattern,
 * and the trigrams nearly every row has (those of "@example.com", "@gmail.com") cost the most to
 * read: a whole email took 490 ms at a million contacts, its part up to the @ 0.6 ms. So when the
 * text has 3 characters or more before an @, the index gets that part, and the whole text is checked
 * on the rows it finds (strpos: the same substring match, which no index serves).
 */
function textCondition(q: string) {
  const text = q.toLowerCase();
  const at = text.indexOf('@');
  if (at < 3) return sql.fragment`${SEARCH_TEXT} like ${likePattern(text)}`;
  return sql.fragment`${SEARCH_TEXT} like ${likePattern(text.slice(0, at + 1))} and strpos(${SEARCH_TEXT}, ${text}) > 0`;
}

/**
 * A score range. One without 0 is looked up among the non-zero scores and their index
 * (contact_scores, sql/0056: a contact's own score index would make every score change rewrite all
 * of its indexes), so a narrow range is counted without reading the workspace; one with 0 matches
 * the many unscored contacts and is checked on each contact read.
 */
function scoreCondition(workspaceId: string, search: ContactSearch) {
  const range = scoreRange(search);
  if (!range.nonZero) return sql.fragment`(${range.within(sql.fragment`c.lead_score`)})`;
  return sql.fragment`c.id in (select s.contact_id from contact_scores s
    where s.workspace_id = ${workspaceId} and ${range.within(sql.fragment`s.lead_score`)})`;
}

/** The range's bounds on a column, and whether it leaves 0 out (then contact_scores holds its contacts). */
function scoreRange({ scoreMin: min, scoreMax: max }: ContactSearch) {
  return {
    nonZero: (min !== undefined && min > 0) || (max !== undefined && max < 0),
    within: (column: FragmentSqlToken) =>
      sql.join(
        [
          ...(min !== undefined ? [sql.fragment`${column} >= ${min}`] : []),
          ...(max !== undefined ? [sql.fragment`${column} <= ${max}`] : []),
        ],
        sql.fragment` and `,
      ),
  };
}

function conditions(workspaceId: string, search: ContactSearch, sort: ContactSort) {
  const where = [sql.fragment`c.workspace_id = ${workspaceId}`];
  if (sort === 'email') where.push(sql.fragment`c.email is not null`);
  if (search.q) where.push(textCondition(search.q));
  if (search.attribute) {
    const { name, value } = search.attribute;
    // The value as typed matches a string attribute, and a number or boolean whose text it is.
    const candidates = [JSON.stringify({ [name]: value })];
    if (/^-?\d+(\.\d+)?$/.test(value)) candidates.push(JSON.stringify({ [name]: Number(value) }));
    if (value === 'true' || value === 'false') candidates.push(JSON.stringify({ [name]: value === 'true' }));
    where.push(
      sql.fragment`(${sql.join(
        candidates.map((json) => sql.fragment`c.attributes @> ${json}::jsonb`),
        sql.fragment` or `,
      )})`,
    );
  }
  if (search.segmentId) {
    where.push(sql.fragment`exists (select 1 from segment_memberships m
      where m.segment_id = ${search.segmentId} and m.contact_id = c.id and m.workspace_id = c.workspace_id)`);
  }
  if (search.scoreMin !== undefined || search.scoreMax !== undefined)
    where.push(scoreCondition(workspaceId, search));
  if (search.subscription) {
    // No row means subscribed; the channel 'all' row is the global opt-out (0017_messages.sql).
    const optedOut = sql.fragment`exists (select 1 from contact_subscriptions s
      where s.workspace_id = c.workspace_id and s.contact_id = c.id
        and s.channel in (${search.subscription.channel}, 'all') and s.status = 'unsubscribed')`;
    where.push(search.subscription.status === 'unsubscribed' ? optedOut : sql.fragment`not ${optedOut}`);
  }
  return where;
}

const ORDER = {
  newest: sql.fragment`c.id desc`,
  oldest: sql.fragment`c.id asc`,
  // Emails are unique in a workspace: no tie to break.
  email: sql.fragment`c.email`,
} satisfies Record<ContactSort, unknown>;

function afterCursor(sort: ContactSort, cursor: Cursor) {
  switch (sort) {
    case 'newest':
      return sql.fragment`c.id < ${cursor[0] as string}`;
    case 'oldest':
      return sql.fragment`c.id > ${cursor[0] as string}`;
    case 'email':
      return sql.fragment`c.email > ${cursor[0]}`;
  }
}

/** The position of a row in a sort, as its cursor. */
export function cursorOf(sort: ContactSort, row: ContactRow): Cursor {
  return sort === 'email' ? [row.email ?? ''] : [row.id];
}

type ContactPage = { sort: ContactSort; after: Cursor | null; limit: number };

/** The page's statement (plan tests explain it). */
export function contactSearchQuery(workspaceId: string, search: ContactSearch, page: ContactPage) {
  const where = conditions(workspaceId, search, page.sort);
  if (page.after) where.push(afterCursor(page.sort, page.after));
  return sql.type(ContactRow)`
    select ${contactColumns} from contacts c where ${sql.join(where, sql.fragment` and `)}
    order by ${ORDER[page.sort]} limit ${page.limit}
  `;
}

export async function searchContacts(db: Db, workspaceId: string, search: ContactSearch, page: ContactPage) {
  return db.any(contactSearchQuery(workspaceId, search, page));
}

/** The count's statement (plan tests explain it). */
export function contactCountQuery(workspaceId: string, search: ContactSearch, sort: ContactSort) {
  return sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from (${matchingRows(workspaceId, search, sort)} limit ${COUNT_CAP + 1}) matching
  `;
}

/**
 * The rows the count counts. A segment alone: its members, counted on their own index (each is a
 * contact of the workspace, deleted with it), not looked up one by one among the contacts (334 ms
 * at 8,000 members, 4 at once). A score range without 0 alone: likewise the non-zero scores on
 * their index (each is a contact's; 15 ms for 10,000 against 300 ms looking each contact up). The
 * email sort lists only contacts with an email: it counts among the contacts.
 */
function matchingRows(workspaceId: string, search: ContactSearch, sort: ContactSort) {
  const { segmentId, scoreMin, scoreMax, ...others } = search;
  const alone = sort !== 'email' && Object.values(others).every((value) => value === undefined);
  if (alone && segmentId && scoreMin === undefined && scoreMax === undefined) {
    return sql.fragment`select 1 from segment_memberships m
      where m.workspace_id = ${workspaceId} and m.segment_id = ${segmentId}`;
  }
  const range = scoreRange(search);
  if (alone && !segmentId && range.nonZero) {
    return sql.fragment`select 1 from contact_scores s where s.workspace_id = ${workspaceId} and ${range.within(sql.fragment`s.lead_score`)}`;
  }
  return sql.fragment`select 1 from contacts c where ${sql.join(conditions(workspaceId, search, sort), sql.fragment` and `)}`;
}

/** How many contacts match, counted up to COUNT_CAP + 1 (more means "more than COUNT_CAP"). */
export async function countContactsCapped(
  db: Db,
  workspaceId: string,
  search: ContactSearch,
  sort: ContactSort,
): Promise<number> {
  return db.oneFirst(contactCountQuery(workspaceId, search, sort));
}
