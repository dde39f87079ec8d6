// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { contactConsole } from './console.ts';
import { contactRetention } from './retention.ts';
import { contactRoutes } from './routes.ts';

export const feature: Feature = {
  name: 'contacts',
  routes: contactRoutes,
  retention: contactRetention,
  console: contactConsole,
};
