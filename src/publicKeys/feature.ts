// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { installPublishableKeyCommands } from './commands.ts';
import { publishableKeyConsole } from './console.ts';
import { publishableKeyRoutes } from './routes.ts';
import { identitySecretStore } from './secretStore.ts';

export const feature: Feature = {
  name: 'publicKeys',
  routes: publishableKeyRoutes,
  console: publishableKeyConsole,
  commands: installPublishableKeyCommands,
  secretStores: [identitySecretStore],
};
