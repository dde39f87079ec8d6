// The contacts ingest resolves against, indexed by id, email and anonymousId: found in one look by
// every identifier the items carry (locking them, under the locks), or the plan's contacts locked
// by id when none changed meanwhile.

import type { ContactRow, FoundContact, FoundContactKeys, Identifiers } from '../contacts/index.ts';
import { lockContactsById } from '../contacts/index.ts';
import type { Tx } from '../db/pool.ts';
import { normaliseEmailText } from '../http/email.ts';
import type { IngestItem } from './ingestItem.ts';

/** What resolving needs of a contact: whole rows under the locks, these alone for a plan. */
export type ContactKeys = Pick<ContactRow, 'id' | 'email' | 'anonymous_id'>;
type HowFound = Pick<FoundContact, 'requested_id' | 'kept_anonymous_ids'>;

/** Known contacts by id, email and anonymousId, kept current as identify merges them. */
export class ContactIndex<Row extends ContactKeys = ContactRow> {
  readonly byId = new Map<string, Row>();
  readonly byEmail = new Map<string, Row>();
  readonly byAnonymousId = new Map<string, Row>();
  readonly aliases = new Map<string, string>();

  put(row: Row) {
    this.byId.set(row.id, row);
    if (row.email) this.byEmail.set(row.email, row);
    if (row.anonymous_id) this.byAnonymousId.set(row.anonymous_id, row);
  }

  /** `gone` no longer exists: its id now means `into`, which keeps its anonymousId too. */
  replace(gone: Row, into: Row) {
    this.byId.delete(gone.id);
    this.aliases.set(gone.id, into.id);
    this.put(into);
    if (gone.anonymous_id) this.byAnonymousId.set(gone.anonymous_id, into);
  }

  current(id: string): string {
    let resolved = id;
    while (this.aliases.has(resolved)) resolved = this.aliases.get(resolved)!;
    return resolved;
  }
}

/** What ingest expects before it locks: each item's contact, and the ids of those to create. */
export type ContactPlan = {
  contactIds: (string | null)[];
  /** The contacts the look found, as it found them. */
  found: readonly FoundContactKeys[];
  /** By `e:<email>` or `a:<anonymousId>`: the id planned for a contact to create. */
  newIds: ReadonlyMap<string, string>;
};

export function normaliseEmail(email: string | undefined): string | undefined {
  const value = email === undefined ? undefined : normaliseEmailText(email);
  return value ? value : undefined;
}

type FindContacts<Row extends ContactKeys> = (
  tx: Tx,
  workspaceId: string,
  identifiers: Identifiers,
) => Promise<readonly (Row & HowFound)[]>;

/**
 * The plan's contacts locked by id, when every one is still there with the email and anonymousId
 * the plan saw; else null. Emails and anonymousIds are unique, so a contact that still has them
 * is still the one they name: what else could have moved (a merge, an erasure) deletes a planned
 * contact, and a contact created meanwhile for a planned one is met when that one is inserted.
 */
export async function lockPlanned(
  tx: Tx,
  workspaceId: string,
  plan: ContactPlan,
): Promise<ContactIndex | null> {
  if (plan.found.length === 0) return new ContactIndex();
  const rows = await lockContactsById(
    tx,
    workspaceId,
    plan.found.map((row) => row.id),
  );
  const locked = new Map(rows.map((row) => [row.id, row]));
  const unchanged = plan.found.every((seen) => {
    const row = locked.get(seen.id);
    return row !== undefined && row.email === seen.email && row.anonymous_id === seen.anonymous_id;
  });
  if (!unchanged) return null;
  const index = new ContactIndex<ContactRow>();
  addFound(
    index,
    plan.found.map((seen) => ({ ...seen, ...locked.get(seen.id)! })),
  );
  return index;
}

export async function loadIndex<Row extends ContactKeys>(
  tx: Tx,
  workspaceId: string,
  items: IngestItem[],
  find: FindContacts<Row>,
): Promise<ContactIndex<Row>> {
  const index = new ContactIndex<Row>();
  const ids = new Set<string>();
  const emails = new Set<string>();
  const anonymousIds = new Set<string>();
  for (const item of items) {
    if (item.contactId) ids.add(item.contactId);
    const email = normaliseEmail(item.email);
    if (email) emails.add(email);
    if (item.anonymousId) anonymousIds.add(item.anonymousId);
  }
  if (ids.size + emails.size + anonymousIds.size === 0) return index;
  const identifiers = { ids: [...ids], emails: [...emails], anonymousIds: [...anonymousIds] };
  addFound(index, await find(tx, workspaceId, identifiers));
  // A contact merged away while this statement waited for its lock is gone from the result, and
  // the alias to its survivor is newer than the statement's snapshot: a second look finds it.
  const vanished = identifiers.ids.filter((id) => !index.byId.has(index.current(id)));
  if (vanished.length > 0) {
    addFound(index, await find(tx, workspaceId, { ids: vanished, emails: [], anonymousIds: [] }));
  }
  return index;
}

function addFound<Row extends ContactKeys>(index: ContactIndex<Row>, rows: readonly (Row & HowFound)[]) {
  for (const { requested_id, kept_anonymous_ids, ...found } of rows) {
    const row = found as unknown as Row; // the row, without how it was found
    for (const anonymousId of kept_anonymous_ids ?? [])
      if (!index.byAnonymousId.has(anonymousId)) index.byAnonymousId.set(anonymousId, row);
    index.put(row);
    if (requested_id) index.aliases.set(requested_id, row.id);
  }
}
