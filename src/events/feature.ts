// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { eventRoutes } from './routes.ts';

export const routes = eventRoutes;
export { eventRetention as retention } from './retention.ts';
