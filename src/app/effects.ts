// How features reach the ones above them: a lower feature declares what it needs done (contacts:
// "these contacts changed"; segments: "these memberships changed"; accounts: "this account is
// ready", "the workspaces of this user") and this module hands it the higher feature's function.
import { accounts, campaigns, contacts, segments, workspaces } from './features.ts';

export function installFeatureEffects(): void {
  contacts.installContactsChangedEffect(campaigns.afterContactsChanged);
  segments.installMembershipChangedEffect(campaigns.enrollForSegmentChanges);
  accounts.installAccountHooks({
    accountReady: workspaces.acceptInvitations,
    workspacesOf: workspaces.listWorkspacesOfUser,
  });
}
