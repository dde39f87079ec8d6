// A broadcast's finish: once every member is enrolled, a job checks whether any of its messages is
// still queued or sending; if none is, it stamps broadcast_finished_at with the moment the last of
// them settled (their latest update), else it looks again a second later. It is queued by the last
// enrollment page (broadcast.ts) in that page's transaction, so a broadcast cannot end unwatched,
// and it keeps the delivery path free of the check: a send records its outcome and nothing more.
// A message retried later keeps the broadcast open until its last attempt. A sweep each minute
// settles any broadcast whose chain of checks was lost (one enrolled before this job existed).
import { z } from 'zod';
import type { AppContext } from '../core/context.ts';
import { type Db, sql } from '../db/pool.ts';
import { transactionalDb } from '../jobs/boss.ts';
import type { JobDefinition } from '../jobs/definition.ts';

export const BROADCAST_FINISH_QUEUE = 'campaigns.broadcastFinish';
/** How long the job waits before looking again while messages are left. */
const RECHECK_MS = 1_000;

const Payload = z.object({ workspaceId: z.string(), campaignId: z.string() });
type Payload = z.infer<typeof Payload>;

/** Queues the first check; called in the transaction that enrolls the last member. */
export async function watchBroadcastFinish(app: Pick<AppContext, 'boss'>, db: Db, payload: Payload) {
  await app.boss.send(BROADCAST_FINISH_QUEUE, payload, { db: transactionalDb(db) });
}

/**
 * Stamps the finish if every member is enrolled and no message is queued or sending. Returns
 * 'finished' (now or before), 'open' (messages left) or 'gone' (deleted, or restarted since).
 */
export async function settleBroadcastFinish(db: Db, workspaceId: string, campaignId: string) {
  const row = await db.maybeOne(sql.type(z.object({ finished: z.boolean(), enrolled: z.boolean() }))`
    with stamped as (
      update campaigns c set broadcast_finished_at = greatest(c.broadcast_done_at,
        (select max(m.updated_at) from messages m where m.workspace_id = c.workspace_id and m.campaign_id = c.id))
      where c.workspace_id = ${workspaceId} and c.id = ${campaignId} and c.broadcast_finished_at is null
        and c.broadcast_done_at is not null
        and not exists (select 1 from messages m where m.workspace_id = c.workspace_id and m.campaign_id = c.id
          and m.status in ('queued', 'sending'))
      returning 1)
    select exists (select 1 from stamped) or c.broadcast_finished_at is not null as finished,
      c.broadcast_done_at is not null as enrolled
    from campaigns c where c.workspace_id = ${workspaceId} and c.id = ${campaignId}`);
  if (!row?.enrolled) return 'gone';
  return row.finished ? 'finished' : 'open';
}

const SWEEP_QUEUE = 'campaigns.broadcastFinishSweep';

/** Every broadcast enrolled in full and not yet stamped (a partial index holds just those). */
async function unfinishedBroadcasts(db: Db) {
  return db.any(sql.type(Payload)`
    select workspace_id as "workspaceId", id as "campaignId" from campaigns
    where broadcast_done_at is not null and broadcast_finished_at is null`);
}

export const broadcastFinishSweepJob: JobDefinition = {
  name: SWEEP_QUEUE,
  queue: { notify: true },
  schedule: { cron: '* * * * *' },
  handler: async (context: AppContext) => {
    for (const broadcast of await unfinishedBroadcasts(context.db))
      await settleBroadcastFinish(context.db, broadcast.workspaceId, broadcast.campaignId);
  },
};

export const broadcastFinishJob: JobDefinition<Payload> = {
  name: BROADCAST_FINISH_QUEUE,
  queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 },
  work: { pollingIntervalSeconds: 1 },
  handler: async (context: AppContext, jobs) => {
    for (const job of jobs) {
      const payload = Payload.parse(job.data);
      await context.db.transaction(async (tx) => {
        const state = await settleBroadcastFinish(tx, payload.workspaceId, payload.campaignId);
        if (state !== 'open') return;
        const startAfter = new Date(Date.now() + RECHECK_MS);
        await context.boss.send(BROADCAST_FINISH_QUEUE, payload, { db: transactionalDb(tx), startAfter });
      });
    }
  },
};
