// Campaign goals, checked at ingest: a contact who tracks a running campaign's goal event (its
// `where` holding on the metadata) while enrolled in it converts at once, whatever step it is on:
// status `converted`, exit reason `goal`. One set-based update for the whole request, and none at
// all when no event is a goal's type (the goals come with ingest's cached definitions). Its step
// jobs then find it ended. The event that enrolled a contact does not also convert it.
import { z } from 'zod';
import { type Db, jsonbRows, sql } from '../db/pool.ts';
import { type MetadataCondition, matchesMetadataConditions } from '../segments/index.ts';
import { completeCampaigns } from './engineQueries.ts';
import type { TriggerEvent } from './enroll.ts';

export const CampaignGoalRow = z.object({
  id: z.string(),
  goal: z.object({ eventType: z.string(), where: z.array(z.custom<MetadataCondition>()).optional() }),
});
export type CampaignGoalRow = z.infer<typeof CampaignGoalRow>;

function goalHits(goals: readonly CampaignGoalRow[], events: readonly TriggerEvent[]) {
  const hits: { campaign_id: string; contact_id: string; event_id: string }[] = [];
  for (const event of events) {
    for (const { id, goal } of goals) {
      if (goal.eventType !== event.type) continue;
      if (goal.where && !matchesMetadataConditions(goal.where, event.metadata)) continue;
      hits.push({ campaign_id: id, contact_id: event.contactId, event_id: event.id });
    }
  }
  return hits;
}

export async function convertGoals(
  db: Db,
  workspaceId: string,
  goals: readonly CampaignGoalRow[],
  events: readonly TriggerEvent[],
): Promise<void> {
  if (goals.length === 0) return;
  const hits = goalHits(goals, events);
  if (hits.length === 0) return;
  const converted = await db.anyFirst(sql.type(z.object({ campaign_id: z.string() }))`
    update enrollments e set status = 'converted', exit_reason = 'goal', step_key = null,
      next_step_at = null, held = false, completed_at = now()
    from jsonb_to_recordset(${jsonbRows(hits)}) as hit(campaign_id text, contact_id text, event_id text)
    where e.contact_id = hit.contact_id and e.campaign_id = hit.campaign_id and e.status = 'active'
      and e.workspace_id = ${workspaceId} and e.trigger_event_id is distinct from hit.event_id
    returning e.campaign_id
  `);
  if (converted.length > 0) await completeCampaigns(db, workspaceId, [...new Set(converted)].sort());
}
