// What this feature brings to the service, as the composition layer (src/app/wholeFeatures.ts)
// reads it; nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { publicEventRoutes } from './routes.ts';

export const feature: Feature = { name: 'publicEvents', routes: publicEventRoutes };
