// Identify: an anonymous contact (no email) meets an email. It takes the email, or, when another
// contact already has it, is merged into that contact. Only explicit identifiers ever merge.
import type { Tx } from '../db/pool.ts';
import { emit } from '../outbox/emit.ts';
import { type ContactEffects, contactsChanged } from './effects.ts';
import { mergeContactRows } from './merge.ts';
import { contactEventData } from './present.ts';
import { type ContactRow, findContact, findContactByEmail, updateContact } from './queries.ts';

/** `anonymous` must be locked by the caller and have no email. */
export async function identifyWithEmail(
  tx: Tx,
  effects: ContactEffects,
  anonymous: ContactRow,
  email: string,
): Promise<ContactRow> {
  const workspaceId = anonymous.workspace_id;
  const known = await findContactByEmail(tx, workspaceId, email);
  if (known && known.id !== anonymous.id) return mergeContactRows(tx, effects, known, anonymous);
  const updated = await updateContact(tx, workspaceId, anonymous.id, { email });
  await emit(tx, { workspaceId, type: 'contact.updated', data: contactEventData(updated) });
  await contactsChanged(effects, tx, workspaceId, [updated.id], { fields: ['email'] });
  return (await findContact(tx, workspaceId, updated.id))!;
}
