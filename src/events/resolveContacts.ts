// Which contact each ingested event belongs to: by contactId (merge aliases honoured), else email,
// else anonymousId; missing contacts are created in one statement. An anonymous contact whose
// anonymousId arrives with an email takes that email, or merges into the contact that has it.
// Ingest asks twice: first without locks and without writing (planContacts: what the answer will
// most likely be, so the events can be stored before the contacts are locked), then for real under
// the locks (resolveContacts), reusing the plan's ids for the contacts it creates.

import type { ContactRow } from '../contacts/index.ts';
import {
  contactEventData,
  type FoundContact,
  type FoundContactKeys,
  findAndLockContacts,
  findContactsUnlocked,
  type Identifiers,
  identifyWithEmail,
  insertContactsSkippingTaken,
  lockContactsById,
  mergeContactRows,
  type NewContact,
} from '../contacts/index.ts';
import { NotFoundError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { Tx } from '../db/pool.ts';
import { normaliseEmailText } from '../http/email.ts';
import { emitMany } from '../outbox/emit.ts';
import type { IngestItem } from './ingestItem.ts';

export type Resolved = {
  /** The contact of each item, in order (null: the event has no contact). */
  contactIds: (string | null)[];
  contacts: Map<string, ContactRow>;
  createdIds: Set<string>;
};

/** What resolving needs of a contact: whole rows under the locks, these alone for a plan. */
type ContactKeys = Pick<ContactRow, 'id' | 'email' | 'anonymous_id'>;
type HowFound = Pick<FoundContact, 'requested_id' | 'kept_anonymous_ids'>;

/** Known contacts by id, email and anonymousId, kept current as identify merges them. */
class ContactIndex<Row extends ContactKeys = ContactRow> {
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

type Pending = NewContact & { itemIndexes: number[] };

/** What ingest expects before it locks: each item's contact, and the ids of those to create. */
export type ContactPlan = {
  contactIds: (string | null)[];
  /** The contacts the look found, as it found them. */
  found: readonly FoundContactKeys[];
  /** By `e:<email>` or `a:<anonymousId>`: the id planned for a contact to create. */
  newIds: ReadonlyMap<string, string>;
};

/** How identify changes contacts: for real, or as a plan that writes nothing. */
type ContactWrites<Row extends ContactKeys> = {
  merge(known: Row, anonymous: Row): Promise<Row>;
  identify(anonymous: Row, email: string): Promise<Row>;
};

const applying = (tx: Tx): ContactWrites<ContactRow> => ({
  merge: (known, anonymous) => mergeContactRows(tx, known, anonymous),
  identify: (anonymous, email) => identifyWithEmail(tx, anonymous, email),
});

const planning: ContactWrites<ContactKeys> = {
  merge: async (known) => known,
  identify: async (anonymous, email) => ({ ...anonymous, email }),
};

const pendingKey = (email: string | null | undefined, anonymousId: string | null | undefined) =>
  email ? `e:${email}` : `a:${anonymousId}`;

class PendingContacts {
  readonly list: Pending[] = [];
  private readonly byKey = new Map<string, Pending>();
  private readonly taken = new Set<string>();
  /** Ids a plan chose for the contacts it would create; each is used once at most. */
  private readonly planned: ReadonlyMap<string, string>;
  constructor(planned: ReadonlyMap<string, string> = new Map()) {
    this.planned = planned;
  }

  private idFor(email: string | undefined, anonymousId: string | undefined): string {
    const planned = this.planned.get(pendingKey(email, anonymousId));
    const id = planned && !this.taken.has(planned) ? planned : newId('contact');
    this.taken.add(id);
    return id;
  }

  find(email: string | undefined, anonymousId: string | undefined): Pending | undefined {
    return (
      (email && this.byKey.get(`e:${email}`)) ||
      (anonymousId && this.byKey.get(`a:${anonymousId}`)) ||
      undefined
    );
  }

  add(item: IngestItem, email: string | undefined, anonymousId: string | undefined, index: number) {
    const pending = this.find(email, anonymousId);
    if (pending) {
      pending.itemIndexes.push(index);
      if (anonymousId && !pending.anonymous_id && !this.byKey.has(`a:${anonymousId}`)) {
        pending.anonymous_id = anonymousId;
        this.byKey.set(`a:${anonymousId}`, pending);
      }
      return;
    }
    const created: Pending = {
      id: this.idFor(email, anonymousId),
      email: email ?? null,
      first_name: item.firstName ?? null,
      last_name: item.lastName ?? null,
      phone: item.phone ?? null,
      anonymous_id: anonymousId ?? null,
      itemIndexes: [index],
    };
    this.list.push(created);
    if (email) this.byKey.set(`e:${email}`, created);
    if (anonymousId) this.byKey.set(`a:${anonymousId}`, created);
  }
}

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
async function lockPlanned(tx: Tx, workspaceId: string, plan: ContactPlan): Promise<ContactIndex | null> {
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

async function loadIndex<Row extends ContactKeys>(
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

/** Resolves by email (with identify); returns the contact id, or null when one must be created. */
async function byEmail<Row extends ContactKeys>(
  writes: ContactWrites<Row>,
  index: ContactIndex<Row>,
  email: string,
  anonymousId?: string,
) {
  const known = index.byEmail.get(email);
  const anonymous = anonymousId ? index.byAnonymousId.get(anonymousId) : undefined;
  const mergeable = anonymous && anonymous.email === null && anonymous.id !== known?.id;
  if (known && mergeable) {
    index.replace(anonymous, await writes.merge(known, anonymous));
  } else if (!known && mergeable) {
    index.put(await writes.identify(anonymous, email));
  }
  return index.byEmail.get(email)?.id ?? null;
}

async function resolveEach<Row extends ContactKeys>(
  writes: ContactWrites<Row>,
  index: ContactIndex<Row>,
  items: IngestItem[],
  pending: PendingContacts,
) {
  const contactIds: (string | null)[] = [];
  for (const [position, item] of items.entries()) {
    const email = normaliseEmail(item.email);
    let id: string | null = null;
    if (item.contactId) {
      id = index.current(item.contactId);
      if (!index.byId.has(id)) throw unknownContact(items.length, position);
    } else if (email) {
      id = await byEmail(writes, index, email, item.anonymousId);
      // An anonymousId that already belongs to someone else stays theirs.
      const anonymousId =
        item.anonymousId && !index.byAnonymousId.has(item.anonymousId) ? item.anonymousId : undefined;
      if (!id) pending.add(item, email, anonymousId, position);
    } else if (item.anonymousId) {
      id = index.byAnonymousId.get(item.anonymousId)?.id ?? null;
      if (!id) pending.add(item, undefined, item.anonymousId, position);
    }
    contactIds.push(id);
  }
  return contactIds;
}

function unknownContact(count: number, position: number) {
  const where = count > 1 ? ` (events.${position}.contactId)` : '';
  return new NotFoundError('Contact', `No contact in this workspace has this contactId${where}.`);
}

/** By email, then anonymousId (contacts without an email last): the order every request inserts in. */
function insertOrder(a: NewContact, b: NewContact): number {
  if ((a.email === null) !== (b.email === null)) return a.email === null ? 1 : -1;
  const [x, y] = [`${a.email ?? ''} ${a.anonymous_id ?? ''}`, `${b.email ?? ''} ${b.anonymous_id ?? ''}`];
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Creates the pending contacts; one created meanwhile by a concurrent request is looked up. They
 * are inserted in one order whatever the items' order: two batches creating the same contacts in
 * opposite orders each held an email the other was waiting for, a deadlock PostgreSQL breaks only
 * after a second (test/events/newContactOrder.test.ts). contact.created keeps the items' order.
 */
async function createPending(tx: Tx, workspaceId: string, index: ContactIndex, pending: Pending[]) {
  const rows = pending.map(({ itemIndexes: _, ...contact }) => contact);
  const position = new Map(rows.map((row, i) => [row.id, i]));
  const stored = await insertContactsSkippingTaken(tx, workspaceId, [...rows].sort(insertOrder));
  const inserted = [...stored].sort((a, b) => position.get(a.id)! - position.get(b.id)!);
  for (const row of inserted) index.put(row);
  if (inserted.length < pending.length) {
    const raced = pending.filter((contact) => !index.byId.has(contact.id));
    const found = await findAndLockContacts(tx, workspaceId, {
      ids: [],
      emails: raced.flatMap((contact) => (contact.email ? [contact.email] : [])),
      anonymousIds: raced.flatMap((contact) => (contact.anonymous_id ? [contact.anonymous_id] : [])),
    });
    for (const { requested_id: _, kept_anonymous_ids: __, ...row } of found) index.put(row);
  }
  await emitMany(
    tx,
    inserted.map((row) => ({ workspaceId, type: 'contact.created' as const, data: contactEventData(row) })),
  );
  return new Set(inserted.map((row) => row.id));
}

/**
 * Each item's contact as it will most likely be, read without locks and writing nothing: the
 * contacts as found now, identify's merges and email takeovers as they would go, and a fresh id for
 * each contact to create. An unknown contactId is the 404 it would be under the locks.
 */
export async function planContacts(tx: Tx, workspaceId: string, items: IngestItem[]): Promise<ContactPlan> {
  const found: FoundContactKeys[] = [];
  const index = await loadIndex(tx, workspaceId, items, async (...args) => {
    const rows = await findContactsUnlocked(...args);
    found.push(...rows);
    return rows;
  });
  const pending = new PendingContacts();
  const contactIds = await resolveEach(planning, index, items, pending);
  const newIds = new Map<string, string>();
  for (const contact of pending.list) {
    newIds.set(pendingKey(contact.email, contact.anonymous_id), contact.id);
    for (const position of contact.itemIndexes) contactIds[position] = contact.id;
  }
  return { contactIds: contactIds.map((id) => (id === null ? null : index.current(id))), found, newIds };
}

/**
 * Each item's contact, for real: the contacts locked in id order (by id when `plan` found them and
 * they have not changed), identify applied, the missing ones created with the ids `plan` chose.
 */
export async function resolveContacts(
  tx: Tx,
  workspaceId: string,
  items: IngestItem[],
  plan: ContactPlan,
): Promise<Resolved> {
  // A changed plan is looked up again by every identifier, locking in id order; the rows locked
  // already stay locked (that second look is the rare path, taken after a concurrent merge).
  const index =
    (await lockPlanned(tx, workspaceId, plan)) ??
    (await loadIndex(tx, workspaceId, items, findAndLockContacts));
  const pendingContacts = new PendingContacts(plan.newIds);
  const contactIds = await resolveEach(applying(tx), index, items, pendingContacts);
  const pending = pendingContacts.list;
  const createdIds = pending.length
    ? await createPending(tx, workspaceId, index, pending)
    : new Set<string>();
  for (const contact of pending) {
    const row =
      index.byId.get(contact.id) ??
      (contact.email ? index.byEmail.get(contact.email) : undefined) ??
      index.byAnonymousId.get(contact.anonymous_id ?? '');
    if (!row) throw new Error(`contact for ${contact.email ?? contact.anonymous_id} vanished during ingest`);
    for (const position of contact.itemIndexes) contactIds[position] = row.id;
  }
  return {
    contactIds: contactIds.map((id) => (id === null ? null : index.current(id))),
    contacts: index.byId,
    createdIds,
  };
}
