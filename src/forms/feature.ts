// What this feature brings to the service, as the composition layer (src/app/wholeFeatures.ts)
// reads it; nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { formConsole } from './consolePages.ts';
import { installFormPages } from './pages.ts';
import { formRoutes } from './routes.ts';

export const feature: Feature = {
  name: 'forms',
  routes: formRoutes,
  pages: installFormPages,
  console: formConsole,
};
