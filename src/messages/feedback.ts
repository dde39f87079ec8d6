// What an email provider reports after a send (delivered, bounced, complained), applied to the
// message: its timeline, its webhook, and the contact's email suppression, in the caller's
// transaction. The feedback feature verifies the provider and deduplicates its events; this file
// only knows what each outcome means for a message.
//   - a hard bounce marks a sent message `bounced` and suppresses email for the contact;
//   - a soft bounce leaves the message as it is; `softBounceLimit` in a row suppress email;
//   - a complaint suppresses email; a delivery ends the contact's run of soft bounces.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { emit } from '../outbox/emit.ts';
import { CHANNELS, MESSAGE_STATUSES, type MessageRow } from './rows.ts';
import { setSubscription } from './subscriptionQueries.ts';
import { insertMessageEvent } from './timelineQueries.ts';

export type FeedbackMessage = Pick<MessageRow, 'workspace_id' | 'id' | 'contact_id' | 'channel' | 'status'>;

const FeedbackMessageRow = z.object({
  workspace_id: z.string(),
  id: z.string(),
  contact_id: z.string(),
  channel: z.enum(CHANNELS),
  status: z.enum(MESSAGE_STATUSES),
});

/**
 * The email message a provider event is about: by our id when the provider echoed it, else by the
 * id the provider gave it at send (from the SMTP reply). Null when neither names one of ours.
 */
export async function findFeedbackMessage(
  db: Db,
  workspaceId: string,
  ids: { messageId?: string | null; providerId?: string | null },
): Promise<FeedbackMessage | null> {
  if (ids.messageId) {
    const byOurs = await db.maybeOne(sql.type(FeedbackMessageRow)`
      select workspace_id, id, contact_id, channel, status from messages
      where workspace_id = ${workspaceId} and id = ${ids.messageId} and channel = 'email'
    `);
    if (byOurs) return byOurs;
  }
  if (!ids.providerId) return null;
  return db.maybeOne(sql.type(FeedbackMessageRow)`
    select workspace_id, id, contact_id, channel, status from messages
    where workspace_id = ${workspaceId} and provider_id = ${ids.providerId} and channel = 'email'
    order by created_at desc limit 1
  `);
}

export type FeedbackDetail = { provider: string; reason?: string | null };

function detailOf(detail: FeedbackDetail): Record<string, unknown> {
  return { provider: detail.provider, ...(detail.reason ? { reason: detail.reason.slice(0, 1000) } : {}) };
}

export async function recordDelivered(tx: Db, message: FeedbackMessage, detail: FeedbackDetail) {
  await insertMessageEvent(tx, message, 'delivered', detailOf(detail));
  await resetSoftBounces(tx, message);
  await emit(tx, {
    workspaceId: message.workspace_id,
    type: 'message.delivered',
    data: { messageId: message.id, contactId: message.contact_id, channel: message.channel },
  });
}

export async function recordComplaint(tx: Db, message: FeedbackMessage, detail: FeedbackDetail) {
  await insertMessageEvent(tx, message, 'complained', detailOf(detail));
  await suppressEmail(tx, message, 'complaint');
  await emit(tx, {
    workspaceId: message.workspace_id,
    type: 'message.complained',
    data: { messageId: message.id, contactId: message.contact_id },
  });
}

export async function recordBounce(
  tx: Db,
  message: FeedbackMessage,
  bounce: FeedbackDetail & { bounceType: 'hard' | 'soft'; softBounceLimit: number },
) {
  // A provider reports each deferral of one message: the run counts messages, not reports.
  const firstSoft = bounce.bounceType === 'soft' && !(await hasSoftBounced(tx, message));
  await insertMessageEvent(tx, message, 'bounced', { bounceType: bounce.bounceType, ...detailOf(bounce) });
  if (bounce.bounceType === 'hard') {
    await markBounced(tx, message, bounce.reason ?? 'hard bounce');
    await suppressEmail(tx, message, 'hard_bounce');
  } else if (firstSoft && (await countSoftBounce(tx, message)) >= bounce.softBounceLimit) {
    await suppressEmail(tx, message, 'soft_bounces');
  }
  await emit(tx, {
    workspaceId: message.workspace_id,
    type: 'message.bounced',
    data: { messageId: message.id, contactId: message.contact_id, bounceType: bounce.bounceType },
  });
}

/** Only a sent message becomes bounced: one still being sent keeps its claim for the sender to finish. */
async function markBounced(tx: Db, message: FeedbackMessage, reason: string) {
  await tx.query(sql.typeAlias('void')`
    update messages set status = 'bounced', error = ${reason.slice(0, 1000)}, updated_at = now()
    where workspace_id = ${message.workspace_id} and id = ${message.id} and status = 'sent'
  `);
}

async function suppressEmail(
  tx: Db,
  message: FeedbackMessage,
  reason: 'hard_bounce' | 'complaint' | 'soft_bounces',
) {
  await setSubscription(tx, message.workspace_id, message.contact_id, {
    channel: 'email',
    status: 'unsubscribed',
    reason,
    messageId: message.id,
  });
}

async function hasSoftBounced(tx: Db, message: FeedbackMessage): Promise<boolean> {
  return tx.exists(sql.unsafe`
    select 1 from message_events
    where workspace_id = ${message.workspace_id} and message_id = ${message.id} and type = 'bounced' and detail ->> 'bounceType' = 'soft'
  `);
}

/** The contact's soft bounces in a row, this one included. */
async function countSoftBounce(tx: Db, message: FeedbackMessage): Promise<number> {
  return tx.oneFirst(sql.type(z.object({ count: z.number().int() }))`
    insert into email_soft_bounce_streaks (workspace_id, contact_id, count)
    values (${message.workspace_id}, ${message.contact_id}, 1)
    on conflict (workspace_id, contact_id) do update
      set count = email_soft_bounce_streaks.count + 1, updated_at = now()
    returning count
  `);
}

async function resetSoftBounces(tx: Db, message: FeedbackMessage) {
  await tx.query(sql.typeAlias('void')`
    delete from email_soft_bounce_streaks
    where workspace_id = ${message.workspace_id} and contact_id = ${message.contact_id}
  `);
}
