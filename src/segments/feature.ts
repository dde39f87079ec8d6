// What this feature brings to the service, as the composition layer (src/app/wholeFeatures.ts)
// reads it; nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { background } from './background.ts';
import { installSegmentCommands } from './commands.ts';
import { segmentConsole } from './consolePages.ts';
import { segmentRoutes } from './routes.ts';

export const feature: Feature = {
  ...background,
  routes: segmentRoutes,
  commands: installSegmentCommands,
  console: segmentConsole,
};

export { segmentChoices, segmentsPanel } from './console.ts';
