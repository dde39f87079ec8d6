// What this feature brings to the service, as the composition layer (src/app/wholeFeatures.ts)
// reads it; nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { background } from './background.ts';
import { installWorkspaceCommands } from './commands.ts';
import { installWorkspaceConsole } from './console.ts';
import { workspaceSettingsConsole } from './consoleSettings.ts';
import { invitationRoutes } from './invitationRoutes.ts';
import { workspaceRoutes } from './routes.ts';

export const feature: Feature = {
  ...background,
  routes: [...workspaceRoutes, ...invitationRoutes],
  commands: installWorkspaceCommands,
  console: workspaceSettingsConsole,
  consoleRoot: installWorkspaceConsole,
};
