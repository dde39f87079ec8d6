// Campaign status: draft → active ⇄ paused → archived. Entering `active` (activate from draft or
// paused, or resume) emits campaign.started; anything else is a 409 that says what is allowed.
// What the engine does on each: activating a broadcast from draft enrolls its segment; pausing
// holds enrollments at their next step (the step job sees the status); resuming queues the held
// ones again; archiving exits every active enrollment at once.

import { type AuditAction, recordAudit } from '../audit/index.ts';
import type { AppContext } from '../core/context.ts';
import { ConflictError } from '../core/errors.ts';
import type { Tx } from '../db/pool.ts';
import { emit } from '../outbox/emit.ts';
import { startBroadcast } from './broadcast.ts';
import { exitAllActive, releaseHeld } from './lifecycleQueries.ts';
import { type CampaignStatus, setCampaignStatus } from './queries.ts';
import type { CampaignTrigger } from './schemas.ts';
import { requireCampaign, toCampaign } from './service.ts';
import { enqueueSteps } from './stepQueue.ts';

export type Transition = 'activate' | 'pause' | 'resume' | 'archive';

const MOVES: Record<Transition, { from: CampaignStatus[]; to: CampaignStatus; audit: AuditAction }> = {
  activate: { from: ['draft', 'paused'], to: 'active', audit: 'campaign.activated' },
  resume: { from: ['paused'], to: 'active', audit: 'campaign.resumed' },
  pause: { from: ['active'], to: 'paused', audit: 'campaign.paused' },
  archive: { from: ['draft', 'active', 'paused'], to: 'archived', audit: 'campaign.archived' },
};

/** The transitions a campaign in `status` may take now (the console offers only these). */
export function transitionsFrom(status: CampaignStatus): Transition[] {
  return (Object.keys(MOVES) as Transition[]).filter((t) => MOVES[t].from.includes(status));
}

export async function transitionCampaign(
  app: Pick<AppContext, 'boss'>,
  tx: Tx,
  workspaceId: string,
  id: string,
  transition: Transition,
) {
  const row = await requireCampaign(tx, workspaceId, id, { lock: true });
  const move = MOVES[transition];
  if (!move.from.includes(row.status)) {
    throw new ConflictError(
      `Cannot ${transition} a campaign that is ${row.status}; ${transition} applies to ${move.from.join(' or ')} campaigns.`,
      'invalid-transition',
    );
  }
  const updated = await setCampaignStatus(tx, workspaceId, id, move.to);
  const [before, after] = [{ status: row.status }, { status: updated.status }];
  await recordAudit(tx, { workspaceId, action: move.audit, targetId: id, before, after });
  if (move.to === 'active') {
    await emit(tx, {
      workspaceId,
      type: 'campaign.started',
      data: { campaignId: updated.id, name: updated.name, status: updated.status },
    });
  }
  const trigger = row.trigger as CampaignTrigger;
  if (row.status === 'draft' && move.to === 'active' && trigger.type === 'broadcast') {
    await startBroadcast(app, tx, { workspaceId, id, sendAt: trigger.sendAt });
  }
  if (row.status === 'paused' && move.to === 'active') {
    const held = await releaseHeld(tx, workspaceId, id);
    await enqueueSteps(
      tx,
      held.map((enrollment) => ({ enrollmentId: enrollment.id, stepKey: enrollment.step_key })),
      app.boss,
    );
  }
  if (move.to === 'archived') await exitAllActive(tx, workspaceId, id);
  return toCampaign(updated);
}
