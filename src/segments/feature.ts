// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { installSegmentCommands } from './commands.ts';
import { segmentJobs } from './jobs.ts';
import { segmentRoutes } from './routes.ts';

export { installMembershipChangedEffect } from './effects.ts';
export { useRuleCostLimits } from './ruleCost.ts';

export const routes = segmentRoutes;
export const jobs = segmentJobs;
export const commands = installSegmentCommands;
