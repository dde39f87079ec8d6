// SQL of what a campaign's transitions do to its enrollments.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { completeCampaigns } from './engineQueries.ts';
import { EnrollmentRow, enrollmentColumns } from './queries.ts';

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

/**
 * Ends one active enrollment by hand (exit reason `manual`); null when it is not active. A step job
 * running for it holds its row lock: the update waits for it, then sees where it went. Its queued
 * step job later finds it ended. No campaign.contact.completed: like every exit, it did not finish
 * the flow; but it may be the finished campaign's last one (campaign.completed).
 */
export async function exitEnrollment(db: Db, workspaceId: string, campaignId: string, id: string) {
  const exited = await db.maybeOne(sql.type(EnrollmentRow)`
    update enrollments set status = 'exited', exit_reason = 'manual', step_key = null,
      next_step_at = null, held = false, completed_at = now()
    where workspace_id = ${workspaceId} and campaign_id = ${campaignId} and id = ${id} and status = 'active'
    returning ${enrollmentColumns}
  `);
  if (exited) await completeCampaigns(db, workspaceId, [campaignId]);
  return exited;
}
