// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { pushRoutes } from './routes.ts';

export { installPushSdk as pages } from './sdk.ts';

export const routes = pushRoutes;
