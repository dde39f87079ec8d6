// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { startApiKeyCache } from './cache.ts';
import { installKeyCommands } from './commands.ts';
import { apiKeyConsole } from './console.ts';
import { apiKeyLookup } from './lookup.ts';
import { apiKeyRoutes } from './routes.ts';

export const feature: Feature = {
  name: 'apiKeys',
  routes: apiKeyRoutes,
  console: apiKeyConsole,
  commands: installKeyCommands,
  apiKeyLookup,
  webServices: [startApiKeyCache],
};
