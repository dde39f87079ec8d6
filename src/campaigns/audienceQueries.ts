// The kept counts of broadcasts' audiences (sql/0062): the figures, when and for what they were
// counted, and whether a count is under way.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import type { Audience } from './audience.ts';

const KeptAudience = z.object({
  result: z.custom<Audience>().nullable(),
  counted_at: z.string().nullable(),
  basis: z.unknown().nullable(),
  counting_since: z.string().nullable(),
  /** counting_since is older than the count can take: the worker that held it died. */
  counting_lost: z.boolean(),
});
export type KeptAudience = z.infer<typeof KeptAudience>;

export async function readKeptAudience(db: Db, workspaceId: string, campaignId: string, lostAfterMs: number) {
  return db.maybeOne(sql.type(KeptAudience)`
    select result, counted_at, basis, counting_since,
      coalesce(counting_since < now() - ${lostAfterMs} * interval '1 millisecond', false) as counting_lost
    from campaign_audiences where workspace_id = ${workspaceId} and campaign_id = ${campaignId}`);
}

/**
 * Marks a count under way, unless one is (and is not lost): the time it was asked for when this
 * call marked it, null when another count was under way already.
 */
export async function claimCount(db: Db, workspaceId: string, campaignId: string, lostAfterMs: number) {
  return db.maybeOneFirst(sql.type(z.object({ counting_since: z.string() }))`
    insert into campaign_audiences as a (workspace_id, campaign_id, counting_since)
    values (${workspaceId}, ${campaignId}, now())
    on conflict (workspace_id, campaign_id) do update set counting_since = now()
      where a.counting_since is null or a.counting_since < now() - ${lostAfterMs} * interval '1 millisecond'
    returning counting_since`);
}

/** Keeps a count's figures, with its time and basis, and ends the count. */
export async function keepAudience(
  db: Db,
  workspaceId: string,
  campaignId: string,
  kept: { result: Audience; basis: unknown; countedAt: string },
) {
  await db.query(sql.typeAlias('void')`
    insert into campaign_audiences (workspace_id, campaign_id, result, counted_at, basis, counting_since)
    values (${workspaceId}, ${campaignId}, ${sql.jsonb(kept.result as never)}, ${kept.countedAt},
      ${sql.jsonb(kept.basis as never)}, null)
    on conflict (workspace_id, campaign_id) do update set result = excluded.result,
      counted_at = excluded.counted_at, basis = excluded.basis, counting_since = null`);
}

/** Ends a count that kept nothing (it failed, or the campaign no longer has an audience). */
export async function endCount(db: Db, workspaceId: string, campaignId: string) {
  await db.query(sql.typeAlias('void')`
    update campaign_audiences set counting_since = null
    where workspace_id = ${workspaceId} and campaign_id = ${campaignId}`);
}
