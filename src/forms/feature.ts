// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { formRoutes } from './routes.ts';

export { installFormPages as pages } from './pages.ts';

export const routes = formRoutes;
