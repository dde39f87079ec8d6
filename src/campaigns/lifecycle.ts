// Campaign status: draft → active ⇄ paused → archived. Entering `active` (activate from draft or
// paused, or resume) emits campaign.started; anything else is a 409 that says what is allowed.
import type { Tx } from '../db/pool.ts';
import { ConflictError } from '../http/errors.ts';
import { emit } from '../outbox/emit.ts';
import { type CampaignStatus, setCampaignStatus } from './queries.ts';
import { requireCampaign, toCampaign } from './service.ts';

export type Transition = 'activate' | 'pause' | 'resume' | 'archive';

const MOVES: Record<Transition, { from: CampaignStatus[]; to: CampaignStatus }> = {
  activate: { from: ['draft', 'paused'], to: 'active' },
  resume: { from: ['paused'], to: 'active' },
  pause: { from: ['active'], to: 'paused' },
  archive: { from: ['draft', 'active', 'paused'], to: 'archived' },
};

export async function transitionCampaign(tx: Tx, workspaceId: string, id: string, transition: Transition) {
  const row = await requireCampaign(tx, workspaceId, id, { lock: true });
  const move = MOVES[transition];
  if (!move.from.includes(row.status)) {
    throw new ConflictError(
      `Cannot ${transition} a campaign that is ${row.status}; ${transition} applies to ${move.from.join(' or ')} campaigns.`,
      'invalid-transition',
    );
  }
  const updated = await setCampaignStatus(tx, workspaceId, id, move.to);
  if (move.to === 'active') {
    await emit(tx, {
      workspaceId,
      type: 'campaign.started',
      data: { campaignId: updated.id, name: updated.name, status: updated.status },
    });
  }
  return toCampaign(updated);
}
