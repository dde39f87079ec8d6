// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { installKeyCommands } from './commands.ts';
import { apiKeyRoutes } from './routes.ts';

export { startApiKeyCache } from './cache.ts';
export { apiKeyLookup } from './lookup.ts';

export const routes = apiKeyRoutes;
export const commands = installKeyCommands;
