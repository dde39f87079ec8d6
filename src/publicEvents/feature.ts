// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { publicEventRoutes } from './routes.ts';

export const routes = publicEventRoutes;
