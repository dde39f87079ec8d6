// Contacts: the person records of a workspace. Every write runs in the caller's transaction and
// leaves segments and segment-triggered campaigns up to date before it returns.
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { ConflictError, NotFoundError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { Db, Tx } from '../db/pool.ts';
import { emit, emitMany } from '../outbox/emit.ts';
import { type ContactEffects, contactsChanged } from './effects.ts';
import { eraseContactRows } from './eraseQueries.ts';
import { identifyWithEmail } from './identify.ts';
import { contactEventData, toContact } from './present.ts';
import {
  anonymousIdKept,
  type ContactFields,
  type ContactFilter,
  type ContactRow,
  findContact,
  findContactByAnonymousId,
  insertContact,
  listContacts,
  segmentExists,
  updateContact,
} from './queries.ts';

const anonymousIdTaken = () =>
  new ConflictError('Another contact already has this anonymousId.', 'anonymous-id-taken');

/** Unique violations on contacts are always a taken email or anonymousId: say which. */
export function conflictFromUnique(error: unknown): never {
  if (error instanceof UniqueIntegrityConstraintViolationError) {
    if (error.constraint === 'contacts_workspace_anonymous_id_key') throw anonymousIdTaken();
    throw new ConflictError('Another contact already has this email.', 'email-taken');
  }
  throw error;
}

/** An anonymousId another contact kept from a merge is theirs, as if it were their own. */
async function refuseKeptAnonymousId(
  tx: Tx,
  workspaceId: string,
  anonymousId?: string | null,
  contactId?: string,
) {
  if (anonymousId && (await anonymousIdKept(tx, workspaceId, anonymousId, contactId))) {
    throw anonymousIdTaken();
  }
}

export async function getContact(db: Db, workspaceId: string, contactId: string): Promise<ContactRow> {
  const row = await findContact(db, workspaceId, contactId);
  if (!row) throw new NotFoundError('Contact');
  return row;
}

export async function listContactPage(
  db: Db,
  workspaceId: string,
  filter: ContactFilter,
  page: { page: number; limit: number },
) {
  if (filter.segmentId && !(await segmentExists(db, workspaceId, filter.segmentId))) {
    throw new NotFoundError('Segment');
  }
  const { rows, total } = await listContacts(db, workspaceId, filter, page);
  return { data: rows.map(toContact), page: page.page, limit: page.limit, total };
}

export type CreateContactInput = ContactFields & { attributes?: Record<string, unknown> };

/** Creates a contact (201), or identifies an anonymous one when `anonymousId` names it (200). */
export async function createContact(
  tx: Tx,
  effects: ContactEffects,
  workspaceId: string,
  input: CreateContactInput,
): Promise<{ contact: ContactRow; created: boolean }> {
  if (input.email && input.anonymousId) {
    const anonymous = await findContactByAnonymousId(tx, workspaceId, input.anonymousId);
    if (anonymous && anonymous.email === null) {
      const identified = await identifyWithEmail(tx, effects, anonymous, input.email);
      // The rest of the body is a write to the identified person, as a PATCH would make it.
      const { firstName, lastName, phone, attributes } = input;
      if ([firstName, lastName, phone, attributes].every((value) => value === undefined)) {
        return { contact: identified, created: false };
      }
      const fields = { firstName, lastName, phone };
      const contact = await patchContact(tx, effects, workspaceId, identified.id, fields, attributes);
      return { contact, created: false };
    }
  }
  await refuseKeptAnonymousId(tx, workspaceId, input.anonymousId);
  const row = await insertContact(tx, { ...input, id: newId('contact'), workspaceId }).catch(
    conflictFromUnique,
  );
  await emit(tx, { workspaceId, type: 'contact.created', data: contactEventData(row) });
  await contactsChanged(effects, tx, workspaceId, [row.id], { all: true });
  return { contact: (await findContact(tx, workspaceId, row.id))!, created: true };
}

function changedFields(before: ContactRow, after: ContactRow): string[] {
  const pairs: [string, unknown, unknown][] = [
    ['email', before.email, after.email],
    ['firstName', before.first_name, after.first_name],
    ['lastName', before.last_name, after.last_name],
    ['phone', before.phone, after.phone],
    ['attributes', JSON.stringify(before.attributes), JSON.stringify(after.attributes)],
  ];
  return pairs.filter(([, a, b]) => a !== b).map(([field]) => field);
}

export async function patchContact(
  tx: Tx,
  effects: ContactEffects,
  workspaceId: string,
  contactId: string,
  fields: ContactFields,
  attributes?: Record<string, unknown>,
): Promise<ContactRow> {
  const before = await findContact(tx, workspaceId, contactId, { lock: true });
  if (!before) throw new NotFoundError('Contact');
  await refuseKeptAnonymousId(tx, workspaceId, fields.anonymousId, before.id);
  const after = await updateContact(tx, workspaceId, before.id, fields, attributes).catch(conflictFromUnique);
  const fieldsChanged = changedFields(before, after);
  if (fieldsChanged.length === 0 && before.anonymous_id === after.anonymous_id) return before;
  await emit(tx, { workspaceId, type: 'contact.updated', data: contactEventData(after) });
  if (fieldsChanged.length > 0)
    await contactsChanged(effects, tx, workspaceId, [after.id], { fields: fieldsChanged });
  return (await findContact(tx, workspaceId, after.id))!;
}

/**
 * Erases a person: the contact, its events, memberships, enrollments and score history. Each
 * membership ends with segment.exited, then contact.deleted is emitted.
 */
export async function deleteContact(tx: Tx, workspaceId: string, contactId: string): Promise<void> {
  const row = await findContact(tx, workspaceId, contactId, { lock: true });
  if (!row) throw new NotFoundError('Contact');
  const segmentIds = await eraseContactRows(tx, workspaceId, row.id);
  await emitMany(tx, [
    ...segmentIds.map((segmentId) => ({
      workspaceId,
      type: 'segment.exited' as const,
      data: { segmentId, contactId: row.id },
    })),
    { workspaceId, type: 'contact.deleted', data: { contactId: row.id, email: row.email } },
  ]);
}
