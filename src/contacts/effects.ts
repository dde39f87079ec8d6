// What follows any change to contacts: segments re-evaluated for them, then campaigns triggered by
// the segments they entered. Ingest, contact writes, merges and score decay all end here. Both
// features sit above contacts, so the work is handed in: the composition layer installs it
// (src/app/effects.ts, with campaigns' afterContactsChanged) before any process serves a request.
import type { Tx } from '../db/pool.ts';

export type ChangeScope = { fields?: string[]; all?: boolean; eventTypes?: string[]; score?: boolean };

export type ContactsChangedEffect = (
  tx: Tx,
  workspaceId: string,
  contactIds: string[],
  scope: ChangeScope,
) => Promise<void>;

let effect: ContactsChangedEffect | undefined;

export function installContactsChangedEffect(handler: ContactsChangedEffect): void {
  effect = handler;
}

export async function contactsChanged(
  tx: Tx,
  workspaceId: string,
  contactIds: string[],
  scope: ChangeScope,
): Promise<void> {
  if (contactIds.length === 0) return;
  if (!effect) throw new Error('contact effects are not installed (src/app/effects.ts)');
  await effect(tx, workspaceId, contactIds, scope);
}
