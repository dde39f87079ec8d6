// What the web push service worker reports back, with the message's signed ack token: the
// notification was shown (delivered) or clicked. A click is an open (message.opened, channel
// push) and a `push.clicked`; it implies delivery, so a click whose delivery ack was lost records
// that too. Each report counts once per message (the row is locked; the timeline says what was
// recorded), so retried or replayed acks emit nothing new.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { emit } from '../outbox/emit.ts';
import { setSubscription } from './subscriptionQueries.ts';
import { insertMessageEvent } from './timelineQueries.ts';

export type PushAck = 'delivered' | 'clicked';

const AckedMessage = z.object({ workspace_id: z.string(), id: z.string(), contact_id: z.string() });
type AckedMessage = z.infer<typeof AckedMessage>;

/** The token carries only the message id (it was signed by us), so this read is by id alone. */
async function lockSentPushMessage(tx: Db, messageId: string): Promise<AckedMessage | null> {
  return tx.maybeOne(sql.type(AckedMessage)`
    select workspace_id, id, contact_id from messages
    where id = ${messageId} and channel = 'push' and status = 'sent'
    for update
  `);
}

async function recorded(tx: Db, message: AckedMessage): Promise<Set<string>> {
  const rows = await tx.any(sql.type(z.object({ type: z.string() }))`
    select distinct type from message_events
    where workspace_id = ${message.workspace_id} and message_id = ${message.id} and type in ('delivered', 'opened')
  `);
  return new Set(rows.map((row) => row.type));
}

/** False when no sent push message has this id (erased with its contact, or never sent). */
export async function acknowledgePush(db: Db, messageId: string, ack: PushAck): Promise<boolean> {
  return db.transaction(async (tx) => {
    const message = await lockSentPushMessage(tx, messageId);
    if (!message) return false;
    const done = await recorded(tx, message);
    const workspaceId = message.workspace_id;
    const ids = { messageId: message.id, contactId: message.contact_id };
    if (!done.has('delivered')) {
      await insertMessageEvent(tx, message, 'delivered', { via: ack === 'delivered' ? 'ack' : 'click' });
      await emit(tx, { workspaceId, type: 'message.delivered', data: { ...ids, channel: 'push' } });
    }
    if (ack === 'clicked' && !done.has('opened')) {
      await insertMessageEvent(tx, message, 'opened', { via: 'click' });
      await emit(tx, {
        workspaceId,
        type: 'push.clicked',
        data: { contactId: message.contact_id, messageId },
      });
      await emit(tx, { workspaceId, type: 'message.opened', data: { ...ids, channel: 'push' } });
    }
    return true;
  });
}

/**
 * A browser subscribed: the person asked for push, so an earlier push opt-out (a link, or every
 * subscription expiring) is lifted. A global opt-out ('all') stays: only the person's own
 * resubscribe through the API or a form lifts that.
 */
export async function resubscribeToPush(tx: Db, workspaceId: string, contactId: string): Promise<void> {
  await setSubscription(tx, workspaceId, contactId, {
    channel: 'push',
    status: 'subscribed',
    reason: null,
    messageId: null,
  });
}
