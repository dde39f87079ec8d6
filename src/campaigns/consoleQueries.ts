// A contact's enrollments with their campaign's name, newest first, for the contact page.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

const EnrollmentOfContact = z.object({
  id: z.string(),
  campaign_id: z.string(),
  name: z.string(),
  status: z.string(),
  exit_reason: z.string().nullable(),
  enrolled_at: z.string(),
  completed_at: z.string().nullable(),
});

export async function listEnrollmentsOfContact(
  db: Db,
  workspaceId: string,
  contactId: string,
  limit: number,
) {
  return db.any(sql.type(EnrollmentOfContact)`
    select e.id, e.campaign_id, c.name, e.status, e.exit_reason, e.enrolled_at, e.completed_at
    from enrollments e join campaigns c on c.workspace_id = e.workspace_id and c.id = e.campaign_id
    where e.workspace_id = ${workspaceId} and e.contact_id = ${contactId}
    order by e.enrolled_at desc, e.id desc
    limit ${limit}
  `);
}

const CampaignEnrollmentCounts = z.object({
  campaign_id: z.string(),
  enrolled: z.number(),
  active: z.number(),
  completed: z.number(),
});

/**
 * Enrolled, active and completed per campaign of the list, in one grouped statement over the
 * counters kept as enrollments change (sql/0060).
 */
export async function enrollmentCountsOf(db: Db, workspaceId: string, campaignIds: readonly string[]) {
  if (campaignIds.length === 0) return [];
  return db.any(sql.type(CampaignEnrollmentCounts)`
    select campaign_id, sum(enrolled)::int as enrolled, sum(active)::int as active,
      sum(completed + converted)::int as completed
    from campaign_enrollment_counts
    where workspace_id = ${workspaceId} and campaign_id = any(${sql.array([...campaignIds], 'text')})
    group by campaign_id
  `);
}

const DailyFigure = z.object({
  campaign_id: z.string(),
  day: z.string(),
  sent: z.number(),
  opens: z.number(),
  clicks: z.number(),
});

/**
 * Per campaign and UTC day since `since`: messages sent, and messages a person opened or clicked
 * that day (hits the worker classified as human). Read from the counters the database keeps as
 * messages and hits change (sql/0060), one row per writer: the sum is exact in the snapshot.
 */
export async function dailyFiguresOf(
  db: Db,
  workspaceId: string,
  campaignIds: readonly string[],
  since: string,
) {
  if (campaignIds.length === 0) return [];
  return db.any(sql.type(DailyFigure)`
    select campaign_id, day::text, sum(sent)::int as sent, sum(opens)::int as opens, sum(clicks)::int as clicks
    from campaign_daily_counts
    where workspace_id = ${workspaceId} and campaign_id = any(${sql.array([...campaignIds], 'text')})
      and day >= ${since}::date
    group by campaign_id, day
    having sum(sent) <> 0 or sum(opens) <> 0 or sum(clicks) <> 0
  `);
}

const StepNow = z.object({ step_key: z.string(), waiting: z.number(), delivered: z.number() });

/**
 * What the report does not count per step: the active enrollments at each step now (held ones
 * included), and the messages of each send step a provider reported delivered. Both from the
 * counters kept as enrollments and messages change (sql/0060).
 */
export async function stepFiguresOf(db: Db, workspaceId: string, campaignId: string) {
  return db.any(sql.type(StepNow)`
    select step_key, sum(waiting)::int as waiting, sum(delivered)::int as delivered from (
      select step_key, active as waiting, 0 as delivered from campaign_enrollment_counts
      where workspace_id = ${workspaceId} and campaign_id = ${campaignId} and step_key <> ''
      union all
      select step_key, 0, delivered from campaign_step_counts
      where workspace_id = ${workspaceId} and campaign_id = ${campaignId} and step_key <> ''
    ) figures
    group by step_key
  `);
}

const SegmentName = z.object({ id: z.string(), name: z.string() });

/** The names of the segments a campaign names (its trigger, its branches), to show instead of their ids. */
export async function segmentNamesOf(db: Db, workspaceId: string, segmentIds: readonly string[]) {
  if (segmentIds.length === 0) return new Map<string, string>();
  const rows = await db.any(sql.type(SegmentName)`
    select id, name from segments
    where workspace_id = ${workspaceId} and id = any(${sql.array([...segmentIds], 'text')})
  `);
  return new Map(rows.map((row) => [row.id, row.name]));
}
