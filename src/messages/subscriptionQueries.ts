// SQL for contact subscriptions (opt-outs per channel, 'all' for the global one) and the one
// statement messages run on enrollments: the exit of an unsubscribed contact.
import { z } from 'zod';
import { CHANNEL_NAMES } from '../channels/index.ts';
import { type Db, jsonbRows, sql } from '../db/pool.ts';

/** Every registered channel, and `all` (the global opt-out). */
export const SUBSCRIPTION_CHANNELS = [...CHANNEL_NAMES, 'all'] as const;
export type SubscriptionChannel = (typeof SUBSCRIPTION_CHANNELS)[number];
export const OPT_OUT_REASONS = [
  'link',
  'one_click',
  'api',
  'provider',
  'hard_bounce',
  'complaint',
  'soft_bounces',
  // Made by a double opt-in submission, not yet confirmed: no consent to mail, nor to tracking.
  'unconfirmed',
] as const;
export type OptOutReason = (typeof OPT_OUT_REASONS)[number];

export const SubscriptionRow = z.object({
  channel: z.enum(SUBSCRIPTION_CHANNELS),
  status: z.enum(['subscribed', 'unsubscribed']),
  reason: z.enum(OPT_OUT_REASONS).nullable(),
  message_id: z.string().nullable(),
  changed_at: z.string(),
});
export type SubscriptionRow = z.infer<typeof SubscriptionRow>;

export async function listSubscriptions(db: Db, workspaceId: string, contactId: string) {
  return db.any(sql.type(SubscriptionRow)`
    select channel, status, reason, message_id, changed_at from contact_subscriptions
    where workspace_id = ${workspaceId} and contact_id = ${contactId}
  `);
}

export type SubscriptionChange = {
  channel: SubscriptionChannel;
  status: 'subscribed' | 'unsubscribed';
  reason: OptOutReason | null;
  messageId: string | null;
};

/**
 * Sets a channel's state; returns true when it changed (so a repeated unsubscribe emits nothing).
 * A resubscribe (API) clears a hard bounce or complaint too: the workspace says the address is good.
 */
export async function setSubscription(
  db: Db,
  workspaceId: string,
  contactId: string,
  change: SubscriptionChange,
): Promise<boolean> {
  const changed = await db.maybeOne(sql.type(z.object({ channel: z.string() }))`
    insert into contact_subscriptions (workspace_id, contact_id, channel, status, reason, message_id)
    values (${workspaceId}, ${contactId}, ${change.channel}, ${change.status}, ${change.reason},
      ${change.messageId})
    on conflict (workspace_id, contact_id, channel) do update
      set status = excluded.status, reason = excluded.reason, message_id = excluded.message_id,
          changed_at = now()
      where contact_subscriptions.status is distinct from excluded.status
    returning channel
  `);
  return changed !== null;
}

/** What the address itself said: these hold even for mail sent with ignoreUnsubscribe. */
export const ADDRESS_REFUSALS: Partial<Record<OptOutReason, string>> = {
  hard_bounce: 'hard bounce',
  complaint: 'complaint',
  soft_bounces: 'repeated soft bounces',
};

/**
 * Lifts the contact's opt-outs of these channels, except what the address itself said (a bounce
 * or a spam report: only the workspace may vouch for the address again). Returns how many it lifted.
 */
export async function liftOwnOptOuts(
  db: Db,
  workspaceId: string,
  contactId: string,
  channels: readonly SubscriptionChannel[],
): Promise<number> {
  const result = await db.query(sql.typeAlias('void')`
    update contact_subscriptions
    set status = 'subscribed', reason = null, message_id = null, changed_at = now()
    where workspace_id = ${workspaceId} and contact_id = ${contactId}
      and channel = any(${sql.array([...channels], 'text')}) and status = 'unsubscribed'
      and coalesce(reason, '') <> all(${sql.array(Object.keys(ADDRESS_REFUSALS), 'text')})
  `);
  return result.rowCount;
}

/** The suppression of a contact who opted out of every channel. */
export const UNSUBSCRIBED_FROM_ALL = 'unsubscribed from everything';

export type OptOut = { channel: string; reason: string | null };

/**
 * Why a send on `channel` must not happen given the contact's opt-outs, or null. Hard bounces,
 * complaints and a run of soft bounces hold even for mail sent with ignoreUnsubscribe (the address
 * does not want it or does not take it); other opt-outs do not.
 */
export function suppressionReason(rows: readonly OptOut[], channel: string, ignoreUnsubscribe: boolean) {
  const refusal = rows.map((row) => ADDRESS_REFUSALS[row.reason as OptOutReason]).find(Boolean);
  if (refusal) return refusal;
  if (ignoreUnsubscribe) return null;
  if (rows.some((row) => row.channel === 'all')) return UNSUBSCRIBED_FROM_ALL;
  if (rows.length > 0) return `unsubscribed from ${channel}`;
  return null;
}

/** Why a send to this contact on this channel must not happen, or null (findSuppressions for one). */
export async function findSuppression(
  db: Db,
  workspaceId: string,
  contactId: string,
  channel: string,
  ignoreUnsubscribe: boolean,
): Promise<string | null> {
  const recipient = {
    id: '',
    workspace_id: workspaceId,
    contact_id: contactId,
    channel,
    ignore_unsubscribe: ignoreUnsubscribe,
  };
  return (await findSuppressions(db, [recipient])).get('') ?? null;
}

export type Recipient = {
  id: string;
  workspace_id: string;
  contact_id: string;
  channel: string;
  ignore_unsubscribe: boolean;
};

/** Why each of a batch of messages must not be sent, in one statement: message id → reason (null: may send). */
export async function findSuppressions(
  db: Db,
  messages: readonly Recipient[],
): Promise<Map<string, string | null>> {
  const keys = messages.map(({ id, workspace_id, contact_id, channel }) => ({
    id,
    workspace_id,
    contact_id,
    channel,
  }));
  const rows =
    keys.length === 0
      ? []
      : await db.any(sql.type(
          z.object({ id: z.string(), channel: z.string(), reason: z.string().nullable() }),
        )`
    select r.id, s.channel, s.reason
    from jsonb_to_recordset(${jsonbRows(keys)}) as r(id text, workspace_id text, contact_id text, channel text)
    join contact_subscriptions s on s.workspace_id = r.workspace_id and s.contact_id = r.contact_id
      and s.status = 'unsubscribed' and s.channel in (r.channel, 'all')
  `);
  const byMessage = Map.groupBy(rows, (row) => row.id);
  return new Map(
    messages.map((message) => [
      message.id,
      suppressionReason(byMessage.get(message.id) ?? [], message.channel, message.ignore_unsubscribe),
    ]),
  );
}

/**
 * Exits the contact's active enrollments in campaigns whose every send step is on `channel`
 * (all campaigns with a send step, for 'all'). The flow engine owns enrollments; this is the one
 * statement messages runs on them, because an unsubscribe must stop the flow at once.
 */
export async function exitEnrollmentsOnUnsubscribe(
  db: Db,
  workspaceId: string,
  contactId: string,
  channel: SubscriptionChannel,
): Promise<number> {
  const result = await db.query(sql.typeAlias('void')`
    update enrollments e set status = 'exited', exit_reason = 'unsubscribed', completed_at = now()
    from campaigns c
    where e.workspace_id = ${workspaceId} and e.contact_id = ${contactId} and e.status = 'active'
      and c.workspace_id = e.workspace_id and c.id = e.campaign_id
      and exists (
        select 1 from jsonb_path_query(c.steps, 'strict $.**.channel') as ch
      )
      and (${channel} = 'all' or not exists (
        select 1 from jsonb_path_query(c.steps, 'strict $.**.channel') as ch
        where ch #>> '{}' <> ${channel}
      ))
  `);
  return result.rowCount;
}

/** Whether a send on the channel would reach the contact (no opt-out, bounce or complaint). */
export async function isSubscribed(db: Db, workspaceId: string, contactId: string, channel: string) {
  return (await findSuppression(db, workspaceId, contactId, channel, false)) === null;
}
