// What channels' receivers (delivery reports, opt-outs sent to the provider) may change, handed to
// them by this feature, which owns message rows, subscriptions and their webhooks; and the routes
// of those receivers, for the composition layer (feature.ts).
import { z } from 'zod';
import { CHANNEL_REGISTRY, type ChannelDefinition, type ChannelEffects } from '../channels/index.ts';
import { type Db, sql } from '../db/pool.ts';
import { emit } from '../outbox/emit.ts';
import { type FeedbackMessage, recordDelivered } from './feedback.ts';
import { CHANNELS, MESSAGE_STATUSES } from './rows.ts';
import { liftOwnOptOuts } from './subscriptionQueries.ts';
import { insertMessageEvent } from './timelineQueries.ts';
import { unsubscribeContact } from './unsubscribe.ts';

const ReportedMessage = z.object({
  workspace_id: z.string(),
  id: z.string(),
  contact_id: z.string(),
  channel: z.enum(CHANNELS),
  status: z.enum(MESSAGE_STATUSES),
});

/** The message the provider knows by this id on this channel (its latest, should an id repeat). */
async function findReportedMessage(
  db: Db,
  message: { workspaceId: string; channel: string; providerId: string },
): Promise<FeedbackMessage | null> {
  return db.maybeOne(sql.type(ReportedMessage)`
    select workspace_id, id, contact_id, channel, status from messages
    where workspace_id = ${message.workspaceId} and provider_id = ${message.providerId}
      and channel = ${message.channel}
    order by created_at desc limit 1
  `);
}

/** A sent message the provider could not deliver: failed with its reason, `message.failed`. */
async function recordUndelivered(tx: Db, message: FeedbackMessage, provider: string, error: string) {
  const changed = await tx.query(sql.typeAlias('void')`
    update messages set status = 'failed', error = ${error.slice(0, 1000)}, updated_at = now()
    where workspace_id = ${message.workspace_id} and id = ${message.id} and status = 'sent'
  `);
  await insertMessageEvent(tx, message, 'failed', { provider, error: error.slice(0, 1000) });
  if (changed.rowCount === 0) return;
  await emit(tx, {
    workspaceId: message.workspace_id,
    type: 'message.failed',
    data: { messageId: message.id, contactId: message.contact_id, error },
  });
}

/**
 * `contactsAt` finds those sent to at the address on the channel, and those whose own email is it
 * or whose phone is it once spaces, dots, dashes and brackets are left out (+33 6 12 34 56 78): an
 * opt-out must hold even before the first send. It scans the workspace's contacts, which an
 * opt-out's rarity allows.
 */
export const channelEffects: ChannelEffects = {
  contactsAt: (db, workspaceId, channel, address) =>
    db.anyFirst(sql.type(z.object({ contact_id: z.string() }))`
      select contact_id from messages
      where workspace_id = ${workspaceId} and channel = ${channel} and recipient = ${address}
      union
      select id as contact_id from contacts
      where workspace_id = ${workspaceId}
        and (email = ${address} or regexp_replace(phone, '[^0-9+]', '', 'g') = ${address})
    `),
  unsubscribe: (db, workspaceId, contactId, channel) =>
    unsubscribeContact(db, workspaceId, contactId, channel as never, 'provider', null),
  resubscribe: async (db, workspaceId, contactId, channel) =>
    (await liftOwnOptOuts(db, workspaceId, contactId, [channel as never])) > 0,
  report: async (db, reported, report) => {
    const message = await findReportedMessage(db, reported);
    if (!message) return false;
    if (report.status === 'delivered') await recordDelivered(db, message, { provider: report.provider });
    else await recordUndelivered(db, message, report.provider, report.error);
    return true;
  },
};

/** Every channel's receivers, with this feature's effects. */
export const channelReceiverRoutes = CHANNEL_REGISTRY.flatMap(
  (channel: ChannelDefinition) => channel.receivers?.(channelEffects) ?? [],
);
