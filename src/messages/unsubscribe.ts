// An opt-out, from whichever door it comes (the /u/{token} page, a one-click POST, the API, a
// provider): the subscription row, the message's timeline, the webhook, and the exit of the
// contact's enrollments in campaigns that can no longer reach them, in the caller's transaction.
// A repeated opt-out changes nothing and emits nothing, so every door is idempotent.
import { channelNamed } from '../channels/index.ts';
import type { Db } from '../db/pool.ts';
import { emit } from '../outbox/emit.ts';
import {
  exitEnrollmentsOnUnsubscribe,
  liftOwnOptOuts,
  type OptOutReason,
  type SubscriptionChannel,
  setSubscription,
} from './subscriptionQueries.ts';
import { insertMessageEvent } from './timelineQueries.ts';

export async function unsubscribeContact(
  tx: Db,
  workspaceId: string,
  contactId: string,
  channel: SubscriptionChannel,
  reason: OptOutReason,
  messageId: string | null,
): Promise<boolean> {
  const changed = await setSubscription(tx, workspaceId, contactId, {
    channel,
    status: 'unsubscribed',
    reason,
    messageId,
  });
  if (!changed) return false;
  if (messageId) {
    await insertMessageEvent(tx, { workspace_id: workspaceId, id: messageId }, 'unsubscribed', {
      channel,
      reason,
    });
  }
  if (channel === 'all') {
    await emit(tx, { workspaceId, type: 'unsubscribe.all', data: { contactId } });
  } else {
    // The channel's event carries the message where its documented fields say so.
    const withMessage = 'messageId' in channelNamed(channel).unsubscribeEvent;
    const data = { contactId, channel, ...(withMessage ? { messageId } : {}) };
    await emit(tx, { workspaceId, type: `unsubscribe.${channel}`, data });
  }
  await exitEnrollmentsOnUnsubscribe(tx, workspaceId, contactId, channel);
  return true;
}

/**
 * The way back from the unsubscribe page: lifts the person's own opt-outs of the message's channel
 * and of everything (not a bounce or spam report). Like a resubscribe through the API it emits no
 * webhook (no event type says "subscribed") and does not re-enrol exited campaigns.
 */
export async function resubscribeContact(
  tx: Db,
  workspaceId: string,
  contactId: string,
  channel: Exclude<SubscriptionChannel, 'all'>,
): Promise<boolean> {
  return (await liftOwnOptOuts(tx, workspaceId, contactId, [channel, 'all'])) > 0;
}
