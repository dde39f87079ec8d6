// SQL of enrollment at ingest: the active campaigns a request can trigger, what each contact has
// already had of them, and the set-based insert of new enrollments.
import { z } from 'zod';
import { type Db, sql, VoidRow } from '../db/pool.ts';

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

const HistoryRow = z.object({ campaign_id: z.string(), contact_id: z.string(), active: z.boolean() });

/** One row per (campaign, contact) that has ever been enrolled; `active` if one still runs. */
export async function findEnrollmentHistory(
  db: Db,
  workspaceId: string,
  campaignIds: string[],
  contactIds: string[],
) {
  return db.any(sql.prepared('campaigns.enrollment_history', HistoryRow)`
    select campaign_id, contact_id, bool_or(status = 'active') as active from enrollments
    where workspace_id = ${workspaceId} and contact_id = any(${sql.array(contactIds, 'text')})
      and campaign_id = any(${sql.array(campaignIds, 'text')})
    group by campaign_id, contact_id
  `);
}

export type NewEnrollment = {
  id: string;
  campaign_id: string;
  contact_id: string;
  trigger_event_id: string | null;
};

export async function insertEnrollments(db: Db, workspaceId: string, enrollments: NewEnrollment[]) {
  await db.query(sql.prepared('campaigns.insert_enrollments', VoidRow)`
    insert into enrollments (workspace_id, id, campaign_id, contact_id, trigger_event_id)
    select ${workspaceId}, r.id, r.campaign_id, r.contact_id, r.trigger_event_id
    from jsonb_to_recordset(${sql.jsonb(enrollments as never)})
      as r(id text, campaign_id text, contact_id text, trigger_event_id text)
  `);
}
