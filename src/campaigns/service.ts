// Campaign definitions: create, read, edit (drafts freely; running campaigns only their name),
// delete (drafts and archived ones) and the paginated enrollment list.

import { recordAudit } from '../audit/index.ts';
import { channelNamed } from '../channels/index.ts';
import { segmentExists } from '../contacts/index.ts';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { Db, Tx } from '../db/pool.ts';
import { validateTemplate } from '../templates/index.ts';
import { allSteps, type Step } from './flow.ts';
import { exitEnrollment } from './lifecycleQueries.ts';
import {
  type CampaignDefinition,
  type CampaignRow,
  type CampaignStatus,
  deleteCampaignRow,
  type EnrollmentRow,
  findCampaign,
  findEnrollment,
  insertCampaign,
  listCampaigns,
  listEnrollments,
  updateCampaignDefinition,
} from './queries.ts';
import type { CampaignGoal, CampaignTrigger, SendStep } from './schemas.ts';

export function toCampaign(row: CampaignRow) {
  return {
    id: row.id,
    name: row.name,
    trigger: row.trigger as CampaignTrigger,
    steps: row.steps,
    reentry: row.reentry,
    goal: (row.goal as CampaignGoal | null) ?? null,
    tracking: row.tracking,
    status: row.status,
    activatedAt: row.activated_at,
    broadcast: (row.trigger as CampaignTrigger).type === 'broadcast' ? broadcastTimes(row) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function broadcastTimes(row: CampaignRow) {
  return {
    startedAt: row.broadcast_started_at,
    enrolledAt: row.broadcast_done_at,
    finishedAt: row.broadcast_finished_at,
  };
}

function toEnrollment(row: EnrollmentRow) {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    contactId: row.contact_id,
    status: row.status,
    exitReason: row.exit_reason,
    currentStep: row.current_step,
    stepKey: row.step_key,
    nextStepAt: row.next_step_at,
    held: row.held,
    cohorts: row.cohorts,
    triggerEventId: row.trigger_event_id,
    enrolledAt: row.enrolled_at,
    completedAt: row.completed_at,
  };
}

/** A segment trigger must name a segment of this workspace (404, like any unknown id). */
async function checkTrigger(db: Db, workspaceId: string, trigger: CampaignTrigger | undefined) {
  if (trigger?.type !== 'segment_entered' && trigger?.type !== 'broadcast') return;
  if (!(await segmentExists(db, workspaceId, trigger.segmentId, { hold: true }))) {
    throw new NotFoundError('Segment', 'No segment in this workspace has trigger.segmentId.');
  }
}

/** Branches on `{segment: id}` must name segments of this workspace (404 naming the step). */
async function checkBranchSegments(db: Db, workspaceId: string, steps: Step[] | undefined) {
  if (!steps) return;
  for (const { key, step } of allSteps(steps)) {
    if (step.type !== 'branch' || !('segment' in step.if)) continue;
    if (!(await segmentExists(db, workspaceId, step.if.segment, { hold: true }))) {
      throw new NotFoundError(
        'Segment',
        `No segment in this workspace has the id in step ${key}'s if.segment.`,
      );
    }
  }
}

/** The template fields of a send step, with how each is rendered and its value (the channel's own list). */
function templateFields(step: SendStep) {
  return channelNamed(step.channel).templateFields(step);
}

/** The request path of a step key: "4.paths.1.0" is body.steps.4.paths.1.steps.0. */
const bodyPathOf = (key: string) => `body.steps.${key.replace(/paths\.(\d+)\./g, 'paths.$1.steps.')}`;

/**
 * A send step whose template does not parse is a 400 at save, naming the step and the line: found
 * now rather than as a failed message for every contact who reaches the step.
 */
function checkTemplates(steps: Step[] | undefined) {
  if (!steps) return;
  const errors = [];
  for (const { key, step } of allSteps(steps)) {
    if (step.type !== 'send') continue;
    for (const [field, kind, value] of templateFields(step)) {
      const problem = value === undefined ? null : validateTemplate(value, kind);
      if (!problem) continue;
      errors.push({
        path: `${bodyPathOf(key)}.${field}`,
        message: `step ${key}, ${field}, line ${problem.line}, column ${problem.column}: ${problem.message}`,
      });
    }
  }
  if (errors.length > 0) throw new ValidationError(errors);
}

export async function createCampaign(db: Db, workspaceId: string, input: CampaignDefinition) {
  checkTemplates(input.steps);
  // One transaction, so the segments it names are held until the campaign naming them commits.
  return db.transaction(async (tx) => {
    await checkTrigger(tx, workspaceId, input.trigger as CampaignTrigger);
    await checkBranchSegments(tx, workspaceId, input.steps);
    const campaign = toCampaign(await insertCampaign(tx, workspaceId, newId('campaign'), input));
    await recordAudit(tx, {
      workspaceId,
      action: 'campaign.created',
      targetId: campaign.id,
      after: campaign,
    });
    return campaign;
  });
}

export async function requireCampaign(
  db: Db,
  workspaceId: string,
  id: string,
  options: { lock?: boolean } = {},
) {
  const row = await findCampaign(db, workspaceId, id, options);
  if (!row) throw new NotFoundError('Campaign');
  return row;
}

export async function listCampaignPage(
  db: Db,
  workspaceId: string,
  filter: { status?: CampaignStatus },
  page: { page: number; limit: number },
) {
  const { rows, total } = await listCampaigns(db, workspaceId, filter, page);
  return { data: rows.map(toCampaign), page: page.page, limit: page.limit, total };
}

export async function updateCampaign(
  tx: Tx,
  workspaceId: string,
  id: string,
  input: Partial<CampaignDefinition>,
) {
  const row = await requireCampaign(tx, workspaceId, id, { lock: true });
  if (row.status === 'archived')
    throw new ConflictError('An archived campaign cannot be edited.', 'campaign-archived');
  // Tracking changes only the mail sent from then on, not what enrollments follow.
  const changesMoreThanName = Object.keys(input).some((field) => field !== 'name' && field !== 'tracking');
  if (row.status !== 'draft' && changesMoreThanName) {
    throw new ConflictError(
      `${/^[aeiou]/.test(row.status) ? 'An' : 'A'} ${row.status} campaign takes only a new name and tracking: ` +
        'its enrollments follow the current trigger and steps. Create a new campaign (or edit a draft) to change them.',
      'campaign-not-draft',
    );
  }
  checkTemplates(input.steps);
  await checkTrigger(tx, workspaceId, input.trigger as CampaignTrigger | undefined);
  await checkBranchSegments(tx, workspaceId, input.steps);
  const [before, after] = [
    toCampaign(row),
    toCampaign(await updateCampaignDefinition(tx, workspaceId, id, input)),
  ];
  await recordAudit(tx, { workspaceId, action: 'campaign.updated', targetId: id, before, after });
  return after;
}

export async function deleteCampaign(tx: Tx, workspaceId: string, id: string) {
  const row = await requireCampaign(tx, workspaceId, id, { lock: true });
  if (row.status === 'active' || row.status === 'paused') {
    throw new ConflictError('Archive the campaign before deleting it.', 'campaign-running');
  }
  await deleteCampaignRow(tx, workspaceId, id);
  await recordAudit(tx, { workspaceId, action: 'campaign.deleted', targetId: id, before: toCampaign(row) });
}

export async function listEnrollmentPage(
  db: Db,
  workspaceId: string,
  campaignId: string,
  filter: { status?: string; contactId?: string },
  page: { page: number; limit: number },
) {
  await requireCampaign(db, workspaceId, campaignId);
  const { rows, total } = await listEnrollments(db, workspaceId, campaignId, filter, page);
  return { data: rows.map(toEnrollment), page: page.page, limit: page.limit, total };
}

/** Takes an active enrollment out of its flow now (exit reason `manual`); 409 once it has ended. */
export async function exitEnrollmentManually(tx: Tx, workspaceId: string, campaignId: string, id: string) {
  await requireCampaign(tx, workspaceId, campaignId);
  const exited = await exitEnrollment(tx, workspaceId, campaignId, id);
  if (exited) return toEnrollment(exited);
  const current = await findEnrollment(tx, workspaceId, campaignId, id);
  if (!current) throw new NotFoundError('Enrollment');
  throw new ConflictError(
    `The enrollment has already ended (status ${current.status}${current.exit_reason ? `, ${current.exit_reason}` : ''}).`,
    'enrollment-ended',
  );
}
