// The contacts ingest creates: one per new email or anonymousId among the items (with the id a plan
// chose for it, when it did), inserted in one statement in one order, each announced by contact.created.

import {
  contactEventData,
  findAndLockContacts,
  insertContactsSkippingTaken,
  type NewContact,
} from '../contacts/index.ts';
import { newId } from '../db/ids.ts';
import type { Tx } from '../db/pool.ts';
import { emitMany } from '../outbox/emit.ts';
import type { ContactIndex } from './contactIndex.ts';
import type { IngestItem } from './ingestItem.ts';

export type Pending = NewContact & { itemIndexes: number[] };

export const pendingKey = (email: string | null | undefined, anonymousId: string | null | undefined) =>
  email ? `e:${email}` : `a:${anonymousId}`;

export class PendingContacts {
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
export async function createPending(tx: Tx, workspaceId: string, index: ContactIndex, pending: Pending[]) {
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
