// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { installPublishableKeyCommands } from './commands.ts';
import { publishableKeyRoutes } from './routes.ts';

export const routes = publishableKeyRoutes;
export const commands = installPublishableKeyCommands;
export { identitySecretStore as secretStore } from './secretStore.ts';
