// Which contact each ingested event belongs to: by contactId (merge aliases honoured), else email,
// else anonymousId; missing contacts are created in one statement. An anonymous contact whose
// anonymousId arrives with an email takes that email, or merges into the contact that has it.
// Ingest asks twice: first without locks and without writing (planContacts: what the answer will
// most likely be, so the events can be stored before the contacts are locked), then for real under
// the locks (resolveContacts), reusing the plan's ids for the contacts it creates.

import type { ContactEffects, ContactRow, FoundContactKeys } from '../contacts/index.ts';
import {
  findAndLockContacts,
  findContactsUnlocked,
  identifyWithEmail,
  mergeContactRows,
} from '../contacts/index.ts';
import { NotFoundError } from '../core/errors.ts';
import type { Tx } from '../db/pool.ts';
import {
  type ContactIndex,
  type ContactKeys,
  type ContactPlan,
  loadIndex,
  lockPlanned,
  normaliseEmail,
} from './contactIndex.ts';
import type { IngestItem } from './ingestItem.ts';
import { createPending, PendingContacts, pendingKey } from './newContacts.ts';

export type Resolved = {
  /** The contact of each item, in order (null: the event has no contact). */
  contactIds: (string | null)[];
  contacts: Map<string, ContactRow>;
  createdIds: Set<string>;
};

/** How identify changes contacts: for real, or as a plan that writes nothing. */
type ContactWrites<Row extends ContactKeys> = {
  merge(known: Row, anonymous: Row): Promise<Row>;
  identify(anonymous: Row, email: string): Promise<Row>;
};

const applying = (tx: Tx, effects: ContactEffects): ContactWrites<ContactRow> => ({
  merge: (known, anonymous) => mergeContactRows(tx, effects, known, anonymous),
  identify: (anonymous, email) => identifyWithEmail(tx, effects, anonymous, email),
});

const planning: ContactWrites<ContactKeys> = {
  merge: async (known) => known,
  identify: async (anonymous, email) => ({ ...anonymous, email }),
};

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
  effects: ContactEffects,
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
  const contactIds = await resolveEach(applying(tx, effects), index, items, pendingContacts);
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
