// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { campaignRoutes } from './routes.ts';

export { afterContactsChanged } from './contactEffects.ts';
export { enrollForSegmentChanges } from './enroll.ts';
export { campaignJobs as jobs } from './jobs.ts';
export { registerStepQueue } from './stepQueue.ts';

export const routes = campaignRoutes;
