// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { contactRetention } from './retention.ts';
import { contactRoutes } from './routes.ts';

export const feature: Feature = {
  name: 'contacts',
  routes: contactRoutes,
  retention: contactRetention,
};

/**
 * The contacts section is not in `feature.console`: its contact page is assembled from panels of the
 * features above contacts, which the composition hands in (src/app/console.ts).
 */
export { contactConsole } from './console.ts';
