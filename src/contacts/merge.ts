// Merging two contacts: the secondary's history moves to the primary and the secondary is gone,
// its id resolving to the primary for 30 days. Used by POST …/contacts/merge and by identify.
import { deleteUnverifiedPushSubscriptionsOfIdentified } from '../channels/index.ts';
import { ConflictError, NotFoundError } from '../core/errors.ts';
import type { Tx } from '../db/pool.ts';
import { emitMany, type OutgoingEvent } from '../outbox/emit.ts';
import { type ContactEffects, contactsChanged } from './effects.ts';
import {
  absorbContact,
  exitDuplicateEnrollments,
  insertAlias,
  insertMergeScoreChange,
  keepAnonymousId,
  moveContactData,
} from './mergeQueries.ts';
import { toContact } from './present.ts';
import { type ContactRow, deleteContactRow, findContact } from './queries.ts';

/** Both rows must already be locked by the caller. */
export async function mergeContactRows(
  tx: Tx,
  effects: ContactEffects,
  primary: ContactRow,
  secondary: ContactRow,
): Promise<ContactRow> {
  const workspaceId = primary.workspace_id;
  await moveContactData(tx, workspaceId, primary.id, secondary.id);
  await exitDuplicateEnrollments(tx, workspaceId, primary.id);
  // Deleted before the primary takes its email or anonymousId, which are unique.
  await deleteContactRow(tx, workspaceId, secondary.id);
  const merged = await absorbContact(tx, primary, secondary);
  // A browser stored on a bare anonymousId proved nothing: any page holding the key could have
  // sent that id. It must not start receiving a known person's messages by riding a merge.
  await deleteUnverifiedPushSubscriptionsOfIdentified(tx, workspaceId, primary.id);
  await insertAlias(tx, workspaceId, secondary.id, primary.id);
  // The secondary's device goes on sending its anonymousId: it must reach the merged contact.
  if (secondary.anonymous_id && secondary.anonymous_id !== merged.anonymous_id) {
    await keepAnonymousId(tx, workspaceId, secondary.anonymous_id, primary.id);
  }
  const events: OutgoingEvent[] = [];
  if (secondary.lead_score !== 0) {
    await insertMergeScoreChange(tx, workspaceId, primary.id, primary.lead_score, merged.lead_score);
    events.push({
      workspaceId,
      type: 'contact.score_changed',
      data: {
        contactId: primary.id,
        previousScore: primary.lead_score,
        score: merged.lead_score,
        ruleId: null,
      },
    });
  }
  events.push({
    workspaceId,
    type: 'contact.merged',
    data: {
      primaryContactId: primary.id,
      secondaryContactId: secondary.id,
      mergedContact: toContact(merged),
    },
  });
  await emitMany(tx, events);
  await contactsChanged(effects, tx, workspaceId, [primary.id], { all: true });
  return (await findContact(tx, workspaceId, primary.id))!;
}

export async function mergeContacts(
  tx: Tx,
  effects: ContactEffects,
  workspaceId: string,
  primaryId: string,
  secondaryId: string,
): Promise<ContactRow> {
  // Lock in id order so two merges of the same pair cannot deadlock.
  const [firstId, secondId] = [primaryId, secondaryId].sort();
  const first = await findContact(tx, workspaceId, firstId, { lock: true });
  const second = await findContact(tx, workspaceId, secondId, { lock: true });
  const primary = firstId === primaryId ? first : second;
  const secondary = firstId === primaryId ? second : first;
  if (!primary) throw new NotFoundError('Contact', 'No contact has the primaryContactId.');
  if (!secondary) throw new NotFoundError('Contact', 'No contact has the secondaryContactId.');
  if (primary.id === secondary.id) {
    throw new ConflictError('These ids name the same contact (one was already merged into the other).');
  }
  return mergeContactRows(tx, effects, primary, secondary);
}
