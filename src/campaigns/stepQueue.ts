// The queue of campaign steps. Each step of an enrollment is one pg-boss job {enrollmentId,
// stepKey}, sent in the transaction that decides it (the enrollment's insert, the previous step),
// so a step is queued exactly when its enrollment's state says so. Waits are delayed jobs.
//
// Enrollments are inserted deep in ingest and contact writes, which hold a transaction but not the
// process's queue: the queue is registered here when the process's context is made, rather than
// threaded through every caller of contactsChanged.

import type { Db } from '../db/pool.ts';
import type { Boss } from '../jobs/boss.ts';
import { transactionalDb } from '../jobs/boss.ts';

export const STEP_QUEUE = 'campaigns.step';

export type StepJob = { enrollmentId: string; stepKey: string; startAfter?: Date };

const registered: Boss[] = [];

/** Makes `boss` the queue enrollments are sent through; the returned function takes it back. */
export function registerStepQueue(boss: Boss): () => void {
  registered.push(boss);
  return () => {
    const index = registered.indexOf(boss);
    if (index >= 0) registered.splice(index, 1);
  };
}

/** Sends the step jobs in `db`'s transaction, all in one statement. */
export async function enqueueSteps(
  db: Db,
  jobs: readonly StepJob[],
  boss = registered.at(-1),
): Promise<void> {
  if (jobs.length === 0) return;
  if (!boss) throw new Error('no job queue registered for campaign steps');
  await boss.insert(
    STEP_QUEUE,
    jobs.map((job) => ({
      data: { enrollmentId: job.enrollmentId, stepKey: job.stepKey },
      ...(job.startAfter ? { startAfter: job.startAfter } : {}),
    })),
    { db: transactionalDb(db) },
  );
}
