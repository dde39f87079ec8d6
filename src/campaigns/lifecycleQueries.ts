// SQL of what a campaign's transitions do to its enrollments.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { completeCampaigns } from './engineQueries.ts';

/** The enrollments a pause held, no longer held; resume queues their steps again. */
export async function releaseHeld(db: Db, workspaceId: string, campaignId: string) {
  return db.any(sql.type(z.object({ id: z.string(), step_key: z.string() }))`
    update enrollments set held = false
    where workspace_id = ${workspaceId} and campaign_id = ${campaignId} and held and status = 'active' and step_key is not null
    returning id, step_key
  `);
}

/**
 * Archiving exits every active enrollment (exit reason `archived`); their queued step jobs then
 * find them ended. The campaign is then complete: campaign.completed.
 */
export async function exitAllActive(db: Db, workspaceId: string, campaignId: string) {
  await db.query(sql.typeAlias('void')`
    update enrollments set status = 'exited', exit_reason = 'archived', step_key = null,
      next_step_at = null, held = false, completed_at = now()
    where workspace_id = ${workspaceId} and campaign_id = ${campaignId} and status = 'active'
  `);
  await completeCampaigns(db, workspaceId, [campaignId]);
}
