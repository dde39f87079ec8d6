// What this feature brings to the service, as the composition layer (src/app/wholeFeatures.ts)
// reads it; nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { background } from './background.ts';
import { startApiKeyCache } from './cache.ts';
import { installKeyCommands } from './commands.ts';
import { apiKeyConsole } from './console.ts';
import { apiKeyRoutes } from './routes.ts';

export const feature: Feature = {
  ...background,
  routes: apiKeyRoutes,
  console: apiKeyConsole,
  commands: installKeyCommands,
  webServices: [startApiKeyCache],
};
