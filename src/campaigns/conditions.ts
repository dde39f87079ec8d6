// A branch's condition and a wait's end, decided in SQL for one enrollment: a segment rule is the
// segments' own compiled expression over the contact, so a branch means what a segment means.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import {
  compileMetadataConditions,
  compileSegmentRules,
  contactEventsOfType,
  durationSeconds,
  type Rule,
} from '../segments/index.ts';
import { zoneOf } from './pacing.ts';
import type { BranchCondition } from './schemas.ts';

function conditionSql(condition: BranchCondition, enrolledAt: string) {
  if ('segment' in condition) {
    return sql.fragment`exists (select 1 from segment_memberships m
      where m.workspace_id = c.workspace_id and m.segment_id = ${condition.segment} and m.contact_id = c.id)`;
  }
  if ('since' in condition) {
    const where = condition.where?.length
      ? sql.fragment` and ${compileMetadataConditions(condition.where, 'e')}`
      : sql.fragment``;
    // Through the contact's own index whatever the statistics say (see contactEventsOfType).
    return sql.fragment`exists (select 1 from events e
      where ${contactEventsOfType(condition.event)}
        and e.received_at >= ${enrolledAt}::timestamptz${where})`;
  }
  return compileSegmentRules(condition as Rule);
}

/** Whether the enrolled contact meets the branch condition now. */
export async function meetsCondition(
  db: Db,
  input: { workspaceId: string; contactId: string; enrolledAt: string; condition: BranchCondition },
): Promise<boolean> {
  const met = await db.maybeOneFirst(sql.type(z.object({ met: z.boolean() }))`
    select coalesce(${conditionSql(input.condition, input.enrolledAt)}, false) as met
    from contacts c where c.workspace_id = ${input.workspaceId} and c.id = ${input.contactId}
  `);
  return met ?? false;
}

export type WaitStep = { duration?: string; until?: { time: string; timezone?: string } };

/**
 * When a wait ends: after its duration, or at the next `until.time` in the contact's `timezone`
 * attribute (when it is a time zone), else the step's time zone, else the workspace's default time
 * zone (its campaign pacing), else UTC. PostgreSQL does the local-time arithmetic, daylight saving
 * included.
 */
export async function waitEnd(db: Db, workspaceId: string, contactId: string, step: WaitStep): Promise<Date> {
  if (step.duration) return new Date(Date.now() + (durationSeconds(step.duration) ?? 0) * 1000);
  const until = step.until!;
  const zones = await db.maybeOne(
    sql.type(z.object({ contact: z.string().nullable(), workspace: z.string().nullable() }))`
    select c.attributes->>'timezone' as contact, w.campaign_pacing->>'timezone' as workspace
    from contacts c join workspaces w on w.id = c.workspace_id
    where c.workspace_id = ${workspaceId} and c.id = ${contactId}
  `,
  );
  const zone = zoneOf(zones?.contact, until.timezone, zones?.workspace);
  const at = await db.oneFirst(sql.type(z.object({ at: z.number() }))`
    with local as (select (now() at time zone ${zone})::date as today, ${until.time}::time as clock)
    select extract(epoch from case when (today + clock) at time zone ${zone} > now()
      then (today + clock) at time zone ${zone} else (today + 1 + clock) at time zone ${zone} end)::float8 * 1000 as at
    from local
  `);
  return new Date(at);
}
