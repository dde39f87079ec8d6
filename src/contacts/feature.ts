// What this feature brings to the service, as the composition layer (src/app/wholeFeatures.ts)
// reads it; nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { background } from './background.ts';
import { contactRoutes } from './routes.ts';

export const feature: Feature = {
  ...background,
  routes: contactRoutes,
};

/**
 * The contacts section is not in `feature.console`: its contact page is assembled from panels of the
 * features above contacts, which the composition hands in (src/app/console.ts).
 */
export { contactConsole } from './console.ts';
