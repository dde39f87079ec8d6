// Broadcasts: activating a campaign with a broadcast trigger enrolls every current member of its
// segment, at `sendAt` or now, a page at a time (one job per page, the next queued with the page),
// never holding the segment in memory. The page runs its enrollments' first steps in its own
// transaction (their messages and send jobs, for a send step), as their step jobs would have. The campaign keeps the last contact enrolled as its cursor:
// a page job that does not start at the cursor is a retry of a page already done, and is dropped.
import { z } from 'zod';
import type { AppContext } from '../core/context.ts';
import { newId } from '../db/ids.ts';
import { type Db, jsonbRows, sql, type Tx } from '../db/pool.ts';
import { transactionalDb } from '../jobs/boss.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { emitMany } from '../outbox/emit.ts';
import { watchBroadcastFinish } from './broadcastFinish.ts';
import { completeCampaigns } from './engineQueries.ts';
import { FIRST_STEP } from './flow.ts';
import { runSteps } from './stepBatch.ts';

export const BROADCAST_QUEUE = 'campaigns.broadcast';
/** The cursor before the first page (contact ids are never empty). */
const START = '';

const BroadcastPayload = z.object({ workspaceId: z.string(), campaignId: z.string(), after: z.string() });
type BroadcastPayload = z.infer<typeof BroadcastPayload>;

/** Queues the first page, at `sendAt` or now; called in the activating transaction. */
export async function startBroadcast(
  app: Pick<AppContext, 'boss'>,
  db: Db,
  campaign: { workspaceId: string; id: string; sendAt?: string },
) {
  await db.query(sql.typeAlias('void')`
    update campaigns set broadcast_cursor = ${START}, broadcast_done_at = null,
      broadcast_started_at = null, broadcast_finished_at = null
    where workspace_id = ${campaign.workspaceId} and id = ${campaign.id}`);
  const payload: BroadcastPayload = {
    workspaceId: campaign.workspaceId,
    campaignId: campaign.id,
    after: START,
  };
  const startAfter = campaign.sendAt ? new Date(campaign.sendAt) : undefined;
  await app.boss.send(BROADCAST_QUEUE, payload, {
    db: transactionalDb(db),
    ...(startAfter ? { startAfter } : {}),
  });
}

const Campaign = z.object({
  status: z.string(),
  segment_id: z.string().nullable(),
  broadcast_cursor: z.string().nullable(),
});

async function enrollPage(app: AppContext, db: Tx, payload: BroadcastPayload, pageSize: number) {
  const campaign = await db.maybeOne(sql.type(Campaign)`
    select status, trigger->>'segmentId' as segment_id, broadcast_cursor from campaigns
    where workspace_id = ${payload.workspaceId} and id = ${payload.campaignId} for update`);
  if (!campaign || campaign.broadcast_cursor !== payload.after) return;
  if (payload.after === START) {
    await db.query(sql.typeAlias('void')`update campaigns set broadcast_started_at = now()
      where workspace_id = ${payload.workspaceId} and id = ${payload.campaignId}`);
  }
  const members =
    campaign.status === 'archived' || !campaign.segment_id
      ? []
      : await db.anyFirst(
          sql.type(z.object({ contact_id: z.string() }))`
      select contact_id from segment_memberships
      where workspace_id = ${payload.workspaceId} and segment_id = ${campaign.segment_id}
        and contact_id > ${payload.after}
      order by contact_id limit ${pageSize}`,
        );
  const rows = members.map((contactId) => ({ id: newId('enrollment'), contact_id: contactId }));
  if (rows.length > 0) {
    await db.query(sql.typeAlias('void')`
      insert into enrollments (workspace_id, id, campaign_id, contact_id, step_key)
      select ${payload.workspaceId}, r.id, ${payload.campaignId}, r.contact_id, ${FIRST_STEP}
      from jsonb_to_recordset(${jsonbRows(rows)}) as r(id text, contact_id text)`);
    await emitMany(
      db,
      rows.map((row) => ({
        workspaceId: payload.workspaceId,
        type: 'campaign.contact.enrolled' as const,
        data: { campaignId: payload.campaignId, contactId: row.contact_id },
      })),
    );
    await runSteps(
      app,
      db,
      rows.map((row) => ({ enrollmentId: row.id, stepKey: FIRST_STEP })),
    );
  }
  if (rows.length === pageSize) {
    const after = rows.at(-1)!.contact_id;
    await db.query(
      sql.typeAlias('void')`update campaigns set broadcast_cursor = ${after}
      where workspace_id = ${payload.workspaceId} and id = ${payload.campaignId}`,
    );
    await app.boss.send(BROADCAST_QUEUE, { ...payload, after }, { db: transactionalDb(db) });
    return;
  }
  await db.query(sql.typeAlias('void')`
    update campaigns set broadcast_cursor = null, broadcast_done_at = now()
    where workspace_id = ${payload.workspaceId} and id = ${payload.campaignId}`);
  await completeCampaigns(db, payload.workspaceId, [payload.campaignId]); // an empty segment ends at once
  await watchBroadcastFinish(app, db, { workspaceId: payload.workspaceId, campaignId: payload.campaignId });
}

export const broadcastJob: JobDefinition<BroadcastPayload> = {
  name: BROADCAST_QUEUE,
  queue: { retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 600, notify: true },
  // The first page is queued for sendAt: the poll, not the notify backstop, starts it on time.
  work: { pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
  handler: async (context: AppContext, jobs) => {
    for (const job of jobs) {
      const payload = BroadcastPayload.parse(job.data);
      await context.db.transaction((tx) =>
        enrollPage(context, tx, payload, context.config.CAMPAIGN_BROADCAST_PAGE_SIZE),
      );
    }
  },
};
