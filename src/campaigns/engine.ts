// The flow engine: one pg-boss job per step of an enrollment. The job locks the enrollment, checks
// it is still at that step (a duplicate or stale job finds it moved on and does nothing), re-reads
// its campaign (paused: hold it there; archived: exit it), then runs the step and queues the next
// in the same transaction. Branches and splits decide at once and go on in the same job; a wait
// arms a delayed job for its own step; a send creates its message (unique per enrollment and step)
// with its delivery job, which sends it.
import { z } from 'zod';
import { channelNamed } from '../channels/index.ts';
import type { AppContext } from '../core/context.ts';
import type { Tx } from '../db/pool.ts';
import { createMessage, enqueueDelivery, type MessageTemplate } from '../messages/index.ts';
import { meetsCondition, type WaitStep, waitEnd } from './conditions.ts';
import {
  endEnrollment,
  holdEnrollment,
  lockEnrollment,
  moveEnrollment,
  type StepContext,
} from './engineQueries.ts';
import { drawPath, firstIn, nextStepKey, type Step, stepAt } from './flow.ts';
import { pacedUntil } from './pacing.ts';
import type { SendStep } from './schemas.ts';
import { enqueueSteps } from './stepQueue.ts';

export const StepPayload = z.object({ enrollmentId: z.string(), stepKey: z.string() });
export type StepPayload = z.infer<typeof StepPayload>;

/** Control steps chained in one job; a tree holds far fewer, so more means a bug, not a flow. */
const MAX_HOPS = 1_000;

/** The database's clock and the worker's may differ a little; a wait this close to its end is over. */
const CLOCK_TOLERANCE_MS = 1_000;

type Flow = { app: AppContext; tx: Tx; context: StepContext; cohorts: Record<string, number> };

/** Runs one step job; returns the message it made, if any. */
async function runStepInTransaction(app: AppContext, tx: Tx, job: StepPayload): Promise<string | null> {
  const context = await lockEnrollment(tx, job.enrollmentId);
  if (context?.status !== 'active' || context.step_key !== job.stepKey) return null;
  return runLockedStep(app, tx, context);
}

/** Runs the step an enrollment, locked and checked to be at it, is at. */
export async function runLockedStep(app: AppContext, tx: Tx, context: StepContext): Promise<string | null> {
  const stepKey = context.step_key!;
  if (context.campaign_status === 'archived') {
    await endEnrollment(tx, context, { status: 'exited', exitReason: 'archived' });
    return null;
  }
  if (context.campaign_status !== 'active') {
    await holdEnrollment(tx, context.id); // resume queues it again
    return null;
  }
  return walk({ app, tx, context, cohorts: { ...context.cohorts } }, stepKey);
}

async function walk(flow: Flow, from: string): Promise<string | null> {
  const { context } = flow;
  let key: string | null = from;
  for (let hops = 0; key !== null && hops < MAX_HOPS; hops++) {
    const step = stepAt(context.steps, key);
    if (!step) break;
    switch (step.type) {
      case 'exit':
        key = null;
        break;
      case 'branch':
        key = await branch(flow, key, step);
        break;
      case 'split':
        key = split(flow, key, step);
        break;
      case 'wait': {
        const armed = hops === 0 ? context.wait_ends_at : null;
        if (armed === null || armed > Date.now() + CLOCK_TOLERANCE_MS) return wait(flow, key, step, armed);
        key = nextStepKey(context.steps, key);
        break;
      }
      case 'send':
        return send(flow, key, step);
      default: {
        // A step type the engine does not run is a type error here, never a silent send.
        const unreachable: never = step;
        throw new Error(
          `campaign ${context.campaign_id} step ${key}: unknown type in ${JSON.stringify(unreachable)}`,
        );
      }
    }
  }
  await endEnrollment(flow.tx, context, { status: 'completed', exitReason: null }, flow.cohorts);
  return null;
}

async function branch(flow: Flow, key: string, step: Extract<Step, { type: 'branch' }>) {
  const met = await meetsCondition(flow.tx, {
    workspaceId: flow.context.workspace_id,
    contactId: flow.context.contact_id,
    enrolledAt: flow.context.enrolled_at,
    condition: step.if,
  });
  const arm = met ? 'then' : 'else';
  return firstIn(`${key}.${arm}`, step[arm]) ?? nextStepKey(flow.context.steps, key);
}

/** Draws the path once per enrollment and split (a retried job keeps the recorded one). */
function split(flow: Flow, key: string, step: Extract<Step, { type: 'split' }>) {
  const { paths } = step;
  const drawn = flow.cohorts[key] ?? drawPath(paths.map((path) => path.weight));
  flow.cohorts[key] = drawn;
  return firstIn(`${key}.paths.${drawn}`, paths[drawn].steps) ?? nextStepKey(flow.context.steps, key);
}

/** Arms the wait: the enrollment stays at the wait step, and its job comes back at the end. */
async function wait(flow: Flow, key: string, step: WaitStep, armed: number | null) {
  const { tx, context } = flow;
  const at =
    armed !== null ? new Date(armed) : await waitEnd(tx, context.workspace_id, context.contact_id, step);
  await moveEnrollment(tx, context.id, { stepKey: key, at, cohorts: flow.cohorts });
  await enqueueSteps(tx, [{ enrollmentId: context.id, stepKey: key, startAfter: at }]);
  return null;
}

/** The message's template, as the step's channel writes it (ChannelDefinition.templateOf). */
export function templateOf(step: SendStep): MessageTemplate {
  return channelNamed(step.channel).templateOf(step);
}

/** The message a send step makes for an enrollment. */
export function stepMessage(context: StepContext, key: string, step: SendStep) {
  return {
    workspaceId: context.workspace_id,
    contactId: context.contact_id,
    channel: step.channel,
    campaignId: context.campaign_id,
    enrollmentId: context.id,
    stepKey: key,
    template: templateOf(step),
    triggerEventId: context.trigger_event_id,
  };
}

/** Creates the step's message and its delivery job, and queues the next step (or ends the flow). */
async function send(flow: Flow, key: string, step: SendStep): Promise<string | null> {
  const { app, tx, context } = flow;
  const paced = await pacedUntil(tx, context.workspace_id, context.contact_id);
  if (paced) {
    // Delayed, not dropped: the step's job comes back when the pace allows and checks again.
    await moveEnrollment(tx, context.id, { stepKey: key, at: paced, cohorts: flow.cohorts });
    await enqueueSteps(tx, [{ enrollmentId: context.id, stepKey: key, startAfter: paced }]);
    return null;
  }
  const message = await createMessage(tx, stepMessage(context, key, step));
  if (message.created) await enqueueDelivery(app, tx, message.id);
  const next = nextStepKey(context.steps, key);
  if (next === null) {
    await endEnrollment(tx, context, { status: 'completed', exitReason: null }, flow.cohorts);
  } else {
    await moveEnrollment(tx, context.id, { stepKey: next, at: null, cohorts: flow.cohorts });
    await enqueueSteps(tx, [{ enrollmentId: context.id, stepKey: next }]);
  }
  return message.created ? message.id : null;
}

export async function runStep(app: AppContext, payload: StepPayload): Promise<void> {
  // The message's send job, queued with it, delivers it: in a broadcast, in batches of many
  // (messages/deliver.ts), where one delivery here per step job cost a dozen round trips each.
  await app.db.transaction((tx) => runStepInTransaction(app, tx, payload));
}
