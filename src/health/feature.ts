// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { healthRoutes } from './routes.ts';

export const routes = healthRoutes;
