// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { telegramJobs } from './jobs.ts';
import { telegramRetention } from './retention.ts';
import { telegramRoutes } from './routes.ts';

export const feature: Feature = {
  name: 'telegram',
  routes: telegramRoutes,
  jobs: telegramJobs,
  retention: telegramRetention,
};
