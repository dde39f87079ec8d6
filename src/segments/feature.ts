// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { installSegmentCommands } from './commands.ts';
import { segmentConsole } from './consolePages.ts';
import { segmentCounters } from './counters.ts';
import { segmentJobs } from './jobs.ts';
import { segmentRetention } from './retention.ts';
import { segmentRoutes } from './routes.ts';
import { useRuleCostLimits } from './ruleCost.ts';

export const feature: Feature = {
  name: 'segments',
  routes: segmentRoutes,
  jobs: segmentJobs,
  commands: installSegmentCommands,
  configure: useRuleCostLimits,
  retention: segmentRetention,
  counters: segmentCounters,
  console: segmentConsole,
};

export { segmentChoices, segmentsPanel } from './console.ts';
