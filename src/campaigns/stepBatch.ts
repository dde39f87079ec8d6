// Step jobs a batch at a time, in one transaction: a broadcast queues a page of first steps at once,
// and one transaction (and a dozen statements) per step made the worker, not the database or the
// SMTP server, the limit. The batch's enrollments are locked together (in id order); a send step
// of an active campaign without pacing is done for all of them in a few statements (messages and
// their send jobs, enrollments moved on or completed, next steps queued); anything else (waits,
// branches, paused or archived campaigns, paced sends) runs as a single step job would, in the
// same transaction. A job that is not at its enrollment's step is stale and does nothing, as alone.

import type { AppContext } from '../core/context.ts';
import type { Tx } from '../db/pool.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { createCampaignMessages } from '../messages/index.ts';
import { runLockedStep, StepPayload, stepMessage } from './engine.ts';
import { completeEnrollments, lockEnrollments, moveEnrollments, type StepContext } from './engineQueries.ts';
import { nextStepKey, stepAt } from './flow.ts';
import { readPacing } from './pacing.ts';
import type { SendStep } from './schemas.ts';
import { enqueueSteps, STEP_QUEUE } from './stepQueue.ts';

type Send = { context: StepContext; key: string; step: SendStep };

export async function runStepBatch(app: AppContext, jobs: readonly StepPayload[]): Promise<void> {
  await app.db.transaction((tx) => runSteps(app, tx, jobs));
}

/**
 * Runs these steps in the caller's transaction, as their step jobs would: the broadcast page runs
 * its enrollments' first steps with their insert, so a broadcast queues no step job per contact.
 */
export async function runSteps(app: AppContext, tx: Tx, jobs: readonly StepPayload[]): Promise<void> {
  const wanted = new Set(jobs.map((job) => `${job.enrollmentId} ${job.stepKey}`));
  const contexts = await lockEnrollments(tx, [...new Set(jobs.map((job) => job.enrollmentId))]);
  const due = contexts.filter(
    (context) => context.status === 'active' && wanted.has(`${context.id} ${context.step_key}`),
  );
  const paced = await pacedWorkspaces(tx, due);
  const sends: Send[] = [];
  for (const context of due) {
    const key = context.step_key!;
    const step = stepAt(context.steps, key);
    const simple = context.campaign_status === 'active' && !paced.has(context.workspace_id);
    if (simple && step?.type === 'send') sends.push({ context, key, step });
    else await runLockedStep(app, tx, context);
  }
  await sendAll(app, tx, sends);
}

/** The workspaces of these enrollments with a frequency cap or quiet hours: their sends are checked one by one. */
async function pacedWorkspaces(tx: Tx, contexts: readonly StepContext[]): Promise<Set<string>> {
  const paced = new Set<string>();
  for (const workspaceId of new Set(contexts.map((context) => context.workspace_id))) {
    const pacing = await readPacing(tx, workspaceId);
    if (pacing.frequencyCap || pacing.quietHours) paced.add(workspaceId);
  }
  return paced;
}

async function sendAll(app: AppContext, tx: Tx, sends: readonly Send[]): Promise<void> {
  if (sends.length === 0) return;
  await createCampaignMessages(
    app,
    tx,
    sends.map(({ context, key, step }) => stepMessage(context, key, step)),
  );
  const moves = sends.flatMap(({ context, key }) => {
    const next = nextStepKey(context.steps, key);
    return next === null ? [] : [{ id: context.id, stepKey: next, cohorts: context.cohorts }];
  });
  await moveEnrollments(tx, moves);
  await enqueueSteps(
    tx,
    moves.map((move) => ({ enrollmentId: move.id, stepKey: move.stepKey })),
  );
  await completeEnrollments(
    tx,
    sends
      .filter(({ context, key }) => nextStepKey(context.steps, key) === null)
      .map(({ context }) => ({ context, cohorts: context.cohorts })),
  );
}

export const stepJob: JobDefinition<StepPayload> = {
  name: STEP_QUEUE,
  // notify: a step queued now runs now, not at the worker's next poll.
  queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 600, notify: true },
  // A wait's job is queued ahead of its time: its NOTIFY wakes the worker before it is due, so
  // the poll (not the 30 s notify backstop) is what starts it, within a second of its end.
  // A broadcast queues a page of first steps at once: they run a batch per transaction (stepBatch.ts).
  work: {
    batchSize: 50,
    burstWhenBatchFull: true,
    localConcurrency: 2,
    pollingIntervalSeconds: 1,
    notifyPollingIntervalSeconds: 1,
  },
  handler: async (context: AppContext, jobs) => {
    await runStepBatch(
      context,
      jobs.map((job) => StepPayload.parse(job.data)),
    );
  },
};
