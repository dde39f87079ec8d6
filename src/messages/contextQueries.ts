// What a message is rendered with, read in one statement at send time: the contact as it is now,
// the workspace and campaign names, and the trigger event. The exception to "features read their
// own tables": these are reads of stable columns, and one round-trip per send matters in a broadcast.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

export const DeliveryContext = z.object({
  email: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  phone: z.string().nullable(),
  attributes: z.record(z.string(), z.unknown()),
  lead_score: z.number().int(),
  workspace_name: z.string(),
  campaign_name: z.string().nullable(),
  event_type: z.string().nullable(),
  event_metadata: z.record(z.string(), z.unknown()).nullable(),
  // Both the workspace's and the campaign's switch must allow a kind of tracking.
  track_opens: z.boolean(),
  track_clicks: z.boolean(),
  /** The contact's Telegram chat linked last (telegram_chats), if any. */
  telegram_chat_id: z.number().nullable(),
});
export type DeliveryContext = z.infer<typeof DeliveryContext>;

export async function findDeliveryContext(
  db: Db,
  message: {
    workspace_id: string;
    contact_id: string;
    campaign_id: string | null;
    trigger_event_id: string | null;
  },
) {
  return db.maybeOne(sql.type(DeliveryContext)`
    select c.email, c.first_name, c.last_name, c.phone, c.attributes, c.lead_score,
      w.name as workspace_name, cmp.name as campaign_name, e.type as event_type, e.metadata as event_metadata,
      coalesce((w.tracking->>'opens')::boolean, true) and coalesce((cmp.tracking->>'opens')::boolean, true)
        as track_opens,
      coalesce((w.tracking->>'clicks')::boolean, true) and coalesce((cmp.tracking->>'clicks')::boolean, true)
        as track_clicks,
      (select t.chat_id from telegram_chats t where t.contact_id = c.id and t.workspace_id = c.workspace_id
       order by t.linked_at desc limit 1) as telegram_chat_id
    from contacts c
    join workspaces w on w.id = c.workspace_id
    left join campaigns cmp on cmp.workspace_id = c.workspace_id and cmp.id = ${message.campaign_id}
    left join events e on e.workspace_id = c.workspace_id and e.id = ${message.trigger_event_id}
    where c.workspace_id = ${message.workspace_id} and c.id = ${message.contact_id}
  `);
}

/** The contact a transactional message names by email; null when none has it. */
export async function findContactIdByEmail(db: Db, workspaceId: string, email: string) {
  return db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    select id from contacts where workspace_id = ${workspaceId} and email = ${email}
  `);
}

export async function contactExists(db: Db, workspaceId: string, contactId: string) {
  return db.exists(
    sql.unsafe`select 1 from contacts where workspace_id = ${workspaceId} and id = ${contactId}`,
  );
}
