// What follows any change to contacts: segments re-evaluated for them, then campaigns triggered by
// the segments they entered. Ingest, contact writes, merges and score decay all end here. Both
// features sit above contacts, so the work is handed in on the context, as `app.effects.contacts`
// (src/campaigns/feature.ts provides it, src/app/features.ts gathers it), and every contact write
// is given it by its caller.
import type { Tx } from '../db/pool.ts';

export type ChangeScope = { fields?: string[]; all?: boolean; eventTypes?: string[]; score?: boolean };

export type ContactEffects = {
  /** These contacts changed in `tx`: whatever follows happens in the same transaction. */
  contactsChanged: (tx: Tx, workspaceId: string, contactIds: string[], scope: ChangeScope) => Promise<void>;
};

declare module '../core/context.ts' {
  interface FeatureEffects {
    contacts: ContactEffects;
  }
}

export async function contactsChanged(
  effects: ContactEffects,
  tx: Tx,
  workspaceId: string,
  contactIds: string[],
  scope: ChangeScope,
): Promise<void> {
  if (contactIds.length === 0) return;
  await effects.contactsChanged(tx, workspaceId, contactIds, scope);
}
