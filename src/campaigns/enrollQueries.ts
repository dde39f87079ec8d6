// SQL of enrollment at ingest: the active campaigns a request can trigger, and the set-based insert
// of the enrollments their reentry policies allow, decided in the same statement.
import { z } from 'zod';
import { type Db, jsonbRows, sql } from '../db/pool.ts';

export const TriggeredCampaignRow = z.object({
  id: z.string(),
  trigger: z.record(z.string(), z.unknown()),
  trigger_event_type: z.string().nullable(),
  trigger_segment_id: z.string().nullable(),
  reentry: z.enum(['never', 'after_completion', 'always']),
});
export type TriggeredCampaignRow = z.infer<typeof TriggeredCampaignRow>;

export async function findActiveTriggeredCampaigns(
  db: Db,
  workspaceId: string,
  eventTypes: string[],
  segmentIds: string[],
) {
  return db.any(sql.prepared('campaigns.active_triggered', TriggeredCampaignRow)`
    select id, trigger, trigger_event_type, trigger_segment_id, reentry from campaigns
    where workspace_id = ${workspaceId} and status = 'active'
      and (trigger_event_type = any(${sql.array(eventTypes, 'text')})
           or trigger_segment_id = any(${sql.array(segmentIds, 'text')}))
    order by id
  `);
}

export type EnrollmentCandidate = {
  id: string;
  campaign_id: string;
  contact_id: string;
  trigger_event_id: string | null;
  reentry: 'never' | 'after_completion' | 'always';
};

/**
 * The common table expressions that insert the candidates the reentry policies allow, deciding
 * from what each contact has had of each campaign: `never`, once ever; `after_completion`, not
 * while one is active; `always`, every time. Candidates are taken in order, so within the request
 * only the first of a (campaign, contact) can pass the first two. `enrolled` holds the ids
 * inserted. On their own (insertAllowedEnrollments) or inside ingest's segment diff.
 */
export function allowedEnrollments(workspaceId: string, candidates: readonly EnrollmentCandidate[]) {
  // The history is looked up per candidate, by contact: a correlated lookup is planned on the
  // (contact, campaign) index whatever the statistics say, where a join over the request's arrays
  // was once planned on the campaign index and filtered every enrollment of the campaign.
  return sql.fragment`
    enroll_candidate as (
      select r.*, row_number() over (partition by r.campaign_id, r.contact_id order by r.ord) as nth,
        (select bool_or(e.status = 'active') from enrollments e
         where e.workspace_id = ${workspaceId} and e.contact_id = r.contact_id
           and e.campaign_id = r.campaign_id) as active
      from jsonb_to_recordset(${jsonbRows(candidates.map((candidate, ord) => ({ ...candidate, ord })))})
        as r(ord int, id text, campaign_id text, contact_id text, trigger_event_id text, reentry text)
    ),
    enrolled as (
      insert into enrollments (workspace_id, id, campaign_id, contact_id, trigger_event_id, step_key)
      select ${workspaceId}, c.id, c.campaign_id, c.contact_id, c.trigger_event_id, '0'
      from enroll_candidate c
      where c.reentry = 'always'
         or (c.nth = 1 and c.reentry = 'never' and c.active is null)
         or (c.nth = 1 and c.reentry = 'after_completion' and c.active is not true)
      order by c.ord
      returning id
    )`;
}

/** Inserts the candidates their reentry policies allow (see allowedEnrollments); returns their ids. */
export async function insertAllowedEnrollments(
  db: Db,
  workspaceId: string,
  candidates: readonly EnrollmentCandidate[],
): Promise<Set<string>> {
  const ids = await db.anyFirst(sql.prepared(
    'campaigns.insert_allowed_enrollments',
    z.object({ id: z.string() }),
  )`
    with ${allowedEnrollments(workspaceId, candidates)}
    select id from enrolled
  `);
  return new Set(ids);
}
