// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// the invitation mail job, retention, and what it does when an account is ready. Its feature.ts
// adds the routes and pages; nothing else imports this module.
import type { FeatureBackground } from '../feature/definition.ts';
import { invitationMailJob } from './invitationMail.ts';
import { acceptInvitations } from './invitations.ts';
import { listWorkspacesOfUser } from './queries.ts';
import { workspaceRetention } from './retention.ts';

export const background: FeatureBackground = {
  name: 'workspaces',
  jobs: () => [invitationMailJob],
  retention: workspaceRetention,
  effects: { accounts: { accountReady: acceptInvitations, workspacesOf: listWorkspacesOfUser } },
};
