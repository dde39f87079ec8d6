// SQL of campaign definitions and their enrollment lists.
import { z } from 'zod';
import { pageWindow, selectPage } from '../db/paginate.ts';
import { type Db, sql } from '../db/pool.ts';
import type { Step } from './flow.ts';
import { CampaignStep } from './schemas.ts';

export const CampaignRow = z.object({
  id: z.string(),
  name: z.string(),
  trigger: z.record(z.string(), z.unknown()),
  // Read through the same schema they were written with: typed steps, never a shape it did not allow.
  steps: z.array(CampaignStep),
  reentry: z.enum(['never', 'after_completion', 'always']),
  goal: z.record(z.string(), z.unknown()).nullable(),
  tracking: z.object({ opens: z.boolean(), clicks: z.boolean() }),
  status: z.enum(['draft', 'active', 'paused', 'archived']),
  activated_at: z.string().nullable(),
  broadcast_started_at: z.string().nullable(),
  broadcast_done_at: z.string().nullable(),
  broadcast_finished_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CampaignRow = z.infer<typeof CampaignRow>;
export type CampaignStatus = CampaignRow['status'];

const columns = sql.fragment`id, name, trigger, steps, reentry, goal, tracking, status, activated_at,
  broadcast_started_at, broadcast_done_at, broadcast_finished_at, created_at, updated_at`;

export type CampaignDefinition = {
  name: string;
  trigger: { type: string; eventType?: string; segmentId?: string };
  steps: Step[];
  reentry: string;
  goal?: Record<string, unknown> | null;
  tracking?: { opens: boolean; clicks: boolean };
};

function triggerColumns(trigger: CampaignDefinition['trigger']) {
  return {
    eventType: trigger.type === 'event' ? (trigger.eventType ?? null) : null,
    segmentId: trigger.type === 'segment_entered' ? (trigger.segmentId ?? null) : null,
  };
}

export async function insertCampaign(db: Db, workspaceId: string, id: string, input: CampaignDefinition) {
  const { eventType, segmentId } = triggerColumns(input.trigger);
  return db.one(sql.type(CampaignRow)`
    insert into campaigns (workspace_id, id, name, trigger, trigger_event_type, trigger_segment_id, steps, reentry, goal,
      tracking)
    values (${workspaceId}, ${id}, ${input.name}, ${sql.jsonb(input.trigger as never)}, ${eventType},
            ${segmentId}, ${sql.jsonb(input.steps as never)}, ${input.reentry},
            ${input.goal ? sql.jsonb(input.goal as never) : null},
            ${sql.jsonb(input.tracking ?? { opens: true, clicks: true })})
    returning ${columns}
  `);
}

export async function findCampaign(
  db: Db,
  workspaceId: string,
  id: string,
  options: { lock?: boolean } = {},
) {
  return db.maybeOne(sql.type(CampaignRow)`
    select ${columns} from campaigns where workspace_id = ${workspaceId} and id = ${id}
    ${options.lock ? sql.fragment`for update` : sql.fragment``}
  `);
}

export async function updateCampaignDefinition(
  db: Db,
  workspaceId: string,
  id: string,
  input: Partial<CampaignDefinition>,
) {
  const sets = [sql.fragment`updated_at = now()`];
  if (input.name !== undefined) sets.push(sql.fragment`name = ${input.name}`);
  if (input.reentry !== undefined) sets.push(sql.fragment`reentry = ${input.reentry}`);
  if (input.tracking !== undefined) sets.push(sql.fragment`tracking = ${sql.jsonb(input.tracking)}`);
  if (input.goal !== undefined)
    sets.push(sql.fragment`goal = ${input.goal ? sql.jsonb(input.goal as never) : null}`);
  if (input.steps !== undefined) sets.push(sql.fragment`steps = ${sql.jsonb(input.steps as never)}`);
  if (input.trigger !== undefined) {
    const { eventType, segmentId } = triggerColumns(input.trigger);
    sets.push(sql.fragment`trigger = ${sql.jsonb(input.trigger as never)}, trigger_event_type = ${eventType},
      trigger_segment_id = ${segmentId}`);
  }
  return db.one(sql.type(CampaignRow)`
    update campaigns set ${sql.join(sets, sql.fragment`, `)}
    where workspace_id = ${workspaceId} and id = ${id}
    returning ${columns}
  `);
}

export async function setCampaignStatus(db: Db, workspaceId: string, id: string, status: CampaignStatus) {
  return db.one(sql.type(CampaignRow)`
    update campaigns set status = ${status}, updated_at = now(),
      activated_at = case when ${status} = 'active' then now() else activated_at end
    where workspace_id = ${workspaceId} and id = ${id}
    returning ${columns}
  `);
}

export async function deleteCampaignRow(db: Db, workspaceId: string, id: string) {
  await db.query(
    sql.typeAlias('void')`delete from campaigns where workspace_id = ${workspaceId} and id = ${id}`,
  );
}

export async function listCampaigns(
  db: Db,
  workspaceId: string,
  filter: { status?: CampaignStatus },
  page: { page: number; limit: number },
) {
  const where = sql.join(
    [
      sql.fragment`workspace_id = ${workspaceId}`,
      ...(filter.status ? [sql.fragment`status = ${filter.status}`] : []),
    ],
    sql.fragment` and `,
  );
  const orderBy = sql.fragment`created_at desc, id desc`;
  return selectPage(
    db,
    CampaignRow,
    { columns, from: sql.fragment`campaigns`, where, orderBy },
    pageWindow(page),
  );
}

export const EnrollmentRow = z.object({
  id: z.string(),
  campaign_id: z.string(),
  contact_id: z.string(),
  status: z.enum(['active', 'completed', 'converted', 'exited']),
  exit_reason: z.enum(['goal', 'archived', 'unsubscribed', 'manual', 'merged']).nullable(),
  current_step: z.number(),
  step_key: z.string().nullable(),
  next_step_at: z.string().nullable(),
  held: z.boolean(),
  cohorts: z.record(z.string(), z.number()),
  trigger_event_id: z.string().nullable(),
  enrolled_at: z.string(),
  completed_at: z.string().nullable(),
});
export type EnrollmentRow = z.infer<typeof EnrollmentRow>;

export const enrollmentColumns = sql.fragment`id, campaign_id, contact_id, status, exit_reason, current_step,
  step_key, next_step_at, held, cohorts, trigger_event_id, enrolled_at, completed_at`;

export async function findEnrollment(db: Db, workspaceId: string, campaignId: string, id: string) {
  return db.maybeOne(sql.type(EnrollmentRow)`
    select ${enrollmentColumns} from enrollments
    where workspace_id = ${workspaceId} and campaign_id = ${campaignId} and id = ${id}
  `);
}

export async function listEnrollments(
  db: Db,
  workspaceId: string,
  campaignId: string,
  filter: { status?: string; contactId?: string },
  page: { page: number; limit: number },
) {
  const conditions = [sql.fragment`workspace_id = ${workspaceId}`, sql.fragment`campaign_id = ${campaignId}`];
  if (filter.status) conditions.push(sql.fragment`status = ${filter.status}`);
  if (filter.contactId) conditions.push(sql.fragment`contact_id = ${filter.contactId}`);
  return selectPage(
    db,
    EnrollmentRow,
    {
      columns: enrollmentColumns,
      from: sql.fragment`enrollments`,
      where: sql.join(conditions, sql.fragment` and `),
      orderBy: sql.fragment`enrolled_at desc, id desc`,
    },
    pageWindow(page),
  );
}
