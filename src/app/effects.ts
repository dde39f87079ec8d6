// How features reach the ones above them: a lower feature declares what it needs done (contacts:
// "these contacts changed"; segments: "these memberships changed"; accounts: "this account is
// ready", "the workspaces of this user") and this module hands it the higher feature's function.
// Accounts get theirs on the context (featureEffects); contacts and segments still have theirs
// installed in module state (installFeatureEffects).
import type { FeatureEffects } from '../core/context.ts';
import { campaigns, contacts, segments, workspaces } from './features.ts';

/** The effects every context carries (`app.effects`). */
export function featureEffects(): FeatureEffects {
  return {
    accounts: {
      accountReady: workspaces.acceptInvitations,
      workspacesOf: workspaces.listWorkspacesOfUser,
    },
  };
}

export function installFeatureEffects(): void {
  contacts.installContactsChangedEffect(campaigns.afterContactsChanged);
  segments.installMembershipChangedEffect(campaigns.enrollForSegmentChanges);
}
