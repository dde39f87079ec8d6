// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// its jobs, what it does when contacts and segment memberships change, and the step queue. Its
// feature.ts adds the routes and pages; nothing else imports this module.
import type { FeatureBackground } from '../feature/definition.ts';
import { afterContactsChanged } from './contactEffects.ts';
import { campaignCounters } from './counters.ts';
import { enrollForSegmentChanges } from './enroll.ts';
import { campaignJobs } from './jobs.ts';
import { registerStepQueue } from './stepQueue.ts';

export const background: FeatureBackground = {
  name: 'campaigns',
  jobs: campaignJobs,
  counters: campaignCounters,
  effects: {
    contacts: { contactsChanged: afterContactsChanged },
    segments: { membershipChanged: enrollForSegmentChanges },
  },
  // Enrollments are made deep in ingest and contact writes: their first step's job goes through this.
  attach: (context) => registerStepQueue(context.boss),
};
