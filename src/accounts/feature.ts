// What this feature brings to the service, as the composition layer (src/app/wholeFeatures.ts)
// reads it; nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { background } from './background.ts';
import { installSigninCommands } from './commands.ts';
import { installAccountConsole } from './console.ts';
import { installAccountPages } from './pages.ts';
import { passwordRoutes } from './passwordRoutes.ts';
import { accountRoutes } from './routes.ts';

export const feature: Feature = {
  ...background,
  routes: [...accountRoutes, ...passwordRoutes],
  pages: installAccountPages,
  consoleRoot: installAccountConsole,
  commands: installSigninCommands,
};
