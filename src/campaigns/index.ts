// What other features may use of campaigns: services, queries and types. Never routes, jobs or
// commands (feature.ts holds those, for the composition layer alone).

export { afterContactsChanged } from './contactEffects.ts';
export {
  emitEnrollments,
  enrollForSegmentChanges,
  enrollWithCampaigns,
  proposeEnrollments,
} from './enroll.ts';
export { allowedEnrollments, TriggeredCampaignRow } from './enrollQueries.ts';
export { CampaignGoalRow, convertGoals } from './goal.ts';
export { registerStepQueue } from './stepQueue.ts';
