// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { installWorkspaceCommands } from './commands.ts';
import { invitationRoutes } from './invitationRoutes.ts';
import { workspaceRoutes } from './routes.ts';

export { acceptInvitations } from './invitations.ts';
export { listWorkspacesOfUser } from './queries.ts';

export const routes = [...workspaceRoutes, ...invitationRoutes];
export const commands = installWorkspaceCommands;
export { installWorkspaceConsole as consolePages } from './console.ts';
export { workspaceRetention as retention } from './retention.ts';
