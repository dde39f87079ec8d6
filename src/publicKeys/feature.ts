// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { publishableKeyRoutes } from './routes.ts';

export const routes = publishableKeyRoutes;
export { identitySecretStore as secretStore } from './secretStore.ts';
