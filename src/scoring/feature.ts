// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { scoringConsole } from './consolePages.ts';
import { scoringJobs } from './jobs.ts';
import { scoringRetention } from './retention.ts';
import { scoringRoutes } from './routes.ts';

export const feature: Feature = {
  name: 'scoring',
  routes: scoringRoutes,
  jobs: scoringJobs,
  retention: scoringRetention,
  console: scoringConsole,
};

export { scorePanel } from './console.ts';
