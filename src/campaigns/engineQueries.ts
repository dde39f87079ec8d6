// SQL of the flow engine: an enrollment with its campaign, locked for its step; moving it on,
// holding it, ending it; and campaign.completed once a finished campaign's last enrollment ends.
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { type Db, idArray, jsonbRows, sql } from '../db/pool.ts';
import { emitMany } from '../outbox/emit.ts';
import type { Step } from './flow.ts';
import { CampaignStep } from './schemas.ts';

const CampaignSteps = z.array(CampaignStep);

/** Campaign versions whose parsed steps are kept (a worker runs far fewer campaigns at once). */
const parsedSteps = new LRUCache<string, Step[]>({ max: 500 });

/**
 * A campaign's steps through the schema they were saved with, parsed once per campaign version
 * (its id and updated_at, which every edit moves) rather than once per step job: the engine runs
 * thousands of steps of the same few definitions. The parsed steps are shared between jobs, which
 * only read them.
 */
function parsedStepsOf(campaignId: string, version: string, raw: unknown): Step[] {
  const key = `${campaignId} ${version}`;
  let steps = parsedSteps.get(key);
  if (!steps) {
    steps = CampaignSteps.parse(raw);
    parsedSteps.set(key, steps);
  }
  return steps;
}

const StepContextRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  campaign_id: z.string(),
  contact_id: z.string(),
  trigger_event_id: z.string().nullable(),
  status: z.string(),
  step_key: z.string().nullable(),
  /** Set while the wait at step_key runs: its end. */
  wait_ends_at: z.number().nullable(),
  cohorts: z.record(z.string(), z.number()),
  enrolled_at: z.string(),
  campaign_status: z.enum(['draft', 'active', 'paused', 'archived']),
  campaign_updated_at: z.string(),
  steps: z.unknown(),
});

export const StepContext = StepContextRow.transform(({ campaign_updated_at, steps, ...row }) => ({
  ...row,
  steps: parsedStepsOf(row.campaign_id, campaign_updated_at, steps),
}));
export type StepContext = z.output<typeof StepContext>;

/** The enrollment, locked for its step (a duplicate job for it waits, then finds it moved on). */
export async function lockEnrollment(db: Db, enrollmentId: string) {
  return db.maybeOne(sql.type(StepContext)`
    select e.id, e.workspace_id, e.campaign_id, e.contact_id, e.trigger_event_id, e.status, e.step_key,
      extract(epoch from e.next_step_at)::float8 * 1000 as wait_ends_at, e.cohorts, e.enrolled_at, c.status as campaign_status,
      c.updated_at as campaign_updated_at, c.steps
    from enrollments e join campaigns c on c.workspace_id = e.workspace_id and c.id = e.campaign_id
    where e.id = ${enrollmentId}
    for update of e
  `);
}

/** lockEnrollment for a batch of step jobs, locked in id order (two batches never wait on each other in a cycle). */
export async function lockEnrollments(db: Db, enrollmentIds: readonly string[]) {
  return db.any(sql.type(StepContext)`
    select e.id, e.workspace_id, e.campaign_id, e.contact_id, e.trigger_event_id, e.status, e.step_key,
      extract(epoch from e.next_step_at)::float8 * 1000 as wait_ends_at, e.cohorts, e.enrolled_at, c.status as campaign_status,
      c.updated_at as campaign_updated_at, c.steps
    from enrollments e join campaigns c on c.workspace_id = e.workspace_id and c.id = e.campaign_id
    where e.id = any(${sql.array([...enrollmentIds], 'text')})
    order by e.id
    for update of e
  `);
}

type Moved = { id: string; stepKey: string; cohorts: Record<string, number> };

/** moveEnrollment (due now) for many, in one statement. */
export async function moveEnrollments(db: Db, moves: readonly Moved[]) {
  if (moves.length === 0) return;
  const rows = moves.map((move) => ({
    id: move.id,
    step_key: move.stepKey,
    current_step: Number(move.stepKey.split('.')[0]),
    cohorts: move.cohorts,
  }));
  await db.query(sql.typeAlias('void')`
    update enrollments e set step_key = r.step_key, current_step = r.current_step, next_step_at = null,
      held = false, cohorts = r.cohorts
    from jsonb_to_recordset(${jsonbRows(rows)}) as r(id text, step_key text, current_step int, cohorts jsonb)
    where e.id = r.id and e.id = any(${idArray(rows)})
  `);
}

/** endEnrollment (completed) for many contexts, in a few statements. */
export async function completeEnrollments(
  db: Db,
  done: readonly { context: StepContext; cohorts: Record<string, number> }[],
) {
  if (done.length === 0) return;
  const rows = done.map(({ context, cohorts }) => ({ id: context.id, cohorts }));
  const ended = await db.any(sql.type(z.object({ id: z.string(), completed_at: z.string() }))`
    update enrollments e set status = 'completed', exit_reason = null, step_key = null, next_step_at = null,
      held = false, completed_at = now(), cohorts = r.cohorts
    from jsonb_to_recordset(${jsonbRows(rows)}) as r(id text, cohorts jsonb)
    where e.id = r.id and e.id = any(${idArray(rows)})
    returning e.id, e.completed_at
  `);
  const completedAt = new Map(ended.map((row) => [row.id, row.completed_at]));
  await emitMany(
    db,
    done.map(({ context }) => ({
      workspaceId: context.workspace_id,
      type: 'campaign.contact.completed' as const,
      data: {
        campaignId: context.campaign_id,
        contactId: context.contact_id,
        completedAt: completedAt.get(context.id)!, // the update above returns every one of them
      },
    })),
  );
  const byWorkspace = Map.groupBy(done, ({ context }) => context.workspace_id);
  for (const [workspaceId, items] of byWorkspace) {
    await completeCampaigns(db, workspaceId, [...new Set(items.map(({ context }) => context.campaign_id))]);
  }
}

/** Moves it to `stepKey`, due at `at` (null: now). The top-level index stays in current_step. */
export async function moveEnrollment(
  db: Db,
  id: string,
  move: { stepKey: string; at: Date | null; cohorts: Record<string, number> },
) {
  await db.query(sql.typeAlias('void')`
    update enrollments set step_key = ${move.stepKey}, current_step = ${Number(move.stepKey.split('.')[0])},
      next_step_at = ${move.at ? move.at.toISOString() : null}, held = false,
      cohorts = ${sql.jsonb(move.cohorts)}
    where id = ${id}
  `);
}

export async function holdEnrollment(db: Db, id: string) {
  await db.query(sql.typeAlias('void')`update enrollments set held = true where id = ${id}`);
}

export type Ending = { status: 'completed' | 'converted' | 'exited'; exitReason: string | null };

/** Ends it; campaign.contact.completed when it finished the flow. */
export async function endEnrollment(db: Db, context: StepContext, ending: Ending, cohorts = context.cohorts) {
  const completedAt = await db.oneFirst(sql.type(z.object({ completed_at: z.string() }))`
    update enrollments set status = ${ending.status}, exit_reason = ${ending.exitReason}, step_key = null,
      next_step_at = null, held = false, completed_at = now(), cohorts = ${sql.jsonb(cohorts)}
    where id = ${context.id}
    returning completed_at
  `);
  if (ending.status === 'completed') {
    await emitMany(db, [
      {
        workspaceId: context.workspace_id,
        type: 'campaign.contact.completed',
        data: { campaignId: context.campaign_id, contactId: context.contact_id, completedAt },
      },
    ]);
  }
  await completeCampaigns(db, context.workspace_id, [context.campaign_id]);
}

const Completed = z.object({ id: z.string(), name: z.string(), total: z.number() });

/**
 * campaign.completed, once, for each of these campaigns that is finished (a broadcast whose
 * members are all enrolled, or an archived campaign) and has no active enrollment left.
 *
 * The campaign rows are locked before the check, in a statement of their own: two transactions
 * ending a campaign's last two enrollments then check one after the other, and the later one
 * (a fresh snapshot) sees both ended, so exactly one emits.
 *
 * A campaign with an active enrollment that no other transaction holds is not finished, whatever
 * commits meanwhile, and is not locked: otherwise every step of a broadcast that ends its
 * enrollment would wait on the campaign row for the one before it to commit. An enrollment another
 * step holds (it may be ending) does not count, so the last two still meet at the lock.
 */
export async function completeCampaigns(db: Db, workspaceId: string, campaignIds: string[]) {
  const finished = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
    select id from campaigns c
    where workspace_id = ${workspaceId} and id = any(${sql.array(campaignIds, 'text')}) and completed_at is null
      and activated_at is not null and (status = 'archived' or broadcast_done_at is not null)
      and not exists (
        select 1 from (
          select 1 from enrollments e
          where e.workspace_id = c.workspace_id and e.campaign_id = c.id and e.status = 'active'
          limit 1 for key share skip locked
        ) as unheld
      )
    order by id
    for update
  `);
  if (finished.length === 0) return;
  const completed = await db.any(sql.type(Completed)`
    update campaigns c set completed_at = now()
    where c.workspace_id = ${workspaceId} and c.id = any(${sql.array([...finished], 'text')})
      and not exists (select 1 from enrollments e
        where e.workspace_id = c.workspace_id and e.campaign_id = c.id and e.status = 'active')
    returning c.id, c.name,
      (select count(*)::int from enrollments e where e.workspace_id = c.workspace_id and e.campaign_id = c.id) as total
  `);
  await emitMany(
    db,
    completed.map((row) => ({
      workspaceId,
      type: 'campaign.completed' as const,
      data: { campaignId: row.id, name: row.name, totalEnrolled: row.total },
    })),
  );
}
