// What a message is rendered with, read in one statement at send time: the contact as it is now,
// the workspace and campaign names, and the trigger event. The exception to "features read their
// own tables": these are reads of stable columns, and one round-trip per send matters in a broadcast.
import { z } from 'zod';
import { sendablePushSubscription } from '../channels/index.ts';
import { type Db, jsonbRows, sql } from '../db/pool.ts';

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
  /**
   * Made by a double opt-in submission and not yet confirmed: the person has consented to nothing,
   * tracking included, so no mail reaching them before they confirm is tracked.
   */
  awaiting_consent: z.boolean(),
  /** The contact's Telegram chat linked last (telegram_chats), if any. */
  telegram_chat_id: z.number().nullable(),
  /** Whether any browser of the contact may be sent to (push_subscriptions: see sendablePushSubscription). */
  has_push_subscription: z.boolean(),
});
export type DeliveryContext = z.infer<typeof DeliveryContext>;

/**
 * What decides whether the contact `c` can be reached on each channel (ChannelDefinition.unreachable
 * reads these and the contact's email and phone): read the same way by a send and by a broadcast's
 * audience.
 */
export const reachColumns = sql.fragment`
      exists (select 1 from contact_subscriptions s where s.workspace_id = c.workspace_id
        and s.contact_id = c.id and s.channel = 'email' and s.status = 'unsubscribed' and s.reason = 'unconfirmed')
        as awaiting_consent,
      (select t.chat_id from telegram_chats t where t.contact_id = c.id and t.workspace_id = c.workspace_id
       order by t.linked_at desc limit 1) as telegram_chat_id,
      exists (select 1 from push_subscriptions p where p.workspace_id = c.workspace_id and p.contact_id = c.id
              and ${sendablePushSubscription(sql.fragment`p`, sql.fragment`c`)})
        as has_push_subscription`;

type ContextKey = {
  workspace_id: string;
  contact_id: string;
  campaign_id: string | null;
  trigger_event_id: string | null;
};

export async function findDeliveryContext(db: Db, message: ContextKey) {
  const found = await findDeliveryContexts(db, [{ ...message, id: '' }]);
  return found.get('') ?? null;
}

/** The contexts of a batch of messages in one statement, by message id (none: the contact is gone). */
export async function findDeliveryContexts(
  db: Db,
  messages: readonly (ContextKey & { id: string })[],
): Promise<Map<string, DeliveryContext>> {
  if (messages.length === 0) return new Map();
  const keys = messages.map(({ id, workspace_id, contact_id, campaign_id, trigger_event_id }) => ({
    id,
    workspace_id,
    contact_id,
    campaign_id,
    trigger_event_id,
  }));
  const rows = await db.any(sql.type(DeliveryContext.extend({ message_id: z.string() }))`
    select r.id as message_id, c.email, c.first_name, c.last_name, c.phone, c.attributes, c.lead_score,
      w.name as workspace_name, cmp.name as campaign_name, e.type as event_type, e.metadata as event_metadata,
      coalesce((w.tracking->>'opens')::boolean, true) and coalesce((cmp.tracking->>'opens')::boolean, true)
        as track_opens,
      coalesce((w.tracking->>'clicks')::boolean, true) and coalesce((cmp.tracking->>'clicks')::boolean, true)
        as track_clicks,
      ${reachColumns}
    from jsonb_to_recordset(${jsonbRows(keys)})
      as r(id text, workspace_id text, contact_id text, campaign_id text, trigger_event_id text)
    join contacts c on c.workspace_id = r.workspace_id and c.id = r.contact_id
    join workspaces w on w.id = c.workspace_id
    left join campaigns cmp on cmp.workspace_id = c.workspace_id and cmp.id = r.campaign_id
    left join events e on e.workspace_id = c.workspace_id and e.id = r.trigger_event_id
  `);
  return new Map(rows.map(({ message_id, ...context }) => [message_id, context]));
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
