// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { installWorkspaceCommands } from './commands.ts';
import { installWorkspaceConsole } from './console.ts';
import { workspaceSettingsConsole } from './consoleSettings.ts';
import { invitationMailJob } from './invitationMail.ts';
import { invitationRoutes } from './invitationRoutes.ts';
import { acceptInvitations } from './invitations.ts';
import { listWorkspacesOfUser } from './queries.ts';
import { workspaceRetention } from './retention.ts';
import { workspaceRoutes } from './routes.ts';

export const feature: Feature = {
  name: 'workspaces',
  routes: [...workspaceRoutes, ...invitationRoutes],
  commands: installWorkspaceCommands,
  jobs: () => [invitationMailJob],
  retention: workspaceRetention,
  console: workspaceSettingsConsole,
  consoleRoot: installWorkspaceConsole,
  effects: { accounts: { accountReady: acceptInvitations, workspacesOf: listWorkspacesOfUser } },
};
