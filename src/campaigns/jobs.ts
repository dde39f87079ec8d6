// The campaign engine's worker jobs: a step of an enrollment, and a page of a broadcast.
import type { JobDefinition } from '../jobs/registry.ts';
import { broadcastJob } from './broadcast.ts';
import { stepJob } from './engine.ts';

// biome-ignore lint/suspicious/noExplicitAny: each job types its own payload
export function campaignJobs(): JobDefinition<any>[] {
  return [stepJob, broadcastJob];
}
