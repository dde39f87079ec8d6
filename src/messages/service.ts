// Messages: making them (campaign steps and transactional sends), reading them, and the
// subscription state that decides whether they may be sent. Transactions are the caller's.
import { channelNamed } from '../channels/index.ts';
import { type ContactEffects, createContact, getContact } from '../contacts/index.ts';
import { NotFoundError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { PageWindow } from '../db/paginate.ts';
import type { Db, Tx } from '../db/pool.ts';
import type { Boss } from '../jobs/boss.ts';
import { transactionalDb } from '../jobs/boss.ts';
import { findContactIdByEmail } from './contextQueries.ts';
import { claimIdempotencyKey } from './idempotencyQueries.ts';
import { SEND_JOB_MESSAGES, SEND_QUEUE } from './outcomes.ts';
import {
  findMessage,
  findMessageByStep,
  findMessageDetail,
  insertCampaignMessages,
  insertMessage,
  listMessagePage,
  listMessagesAfter,
  type MessageFilter,
} from './queries.ts';
import type { Channel, MessageTemplate } from './rows.ts';
import { listSubscriptions, type SubscriptionChannel, setSubscription } from './subscriptionQueries.ts';
import {
  insertMessageEvent,
  insertMessageEvents,
  listMessageEvents,
  listMessageHits,
} from './timelineQueries.ts';
import { unsubscribeContact } from './unsubscribe.ts';

export type CreateMessageInput = {
  /** Made here unless given (a transactional send claims its idempotency key with it first). */
  id?: string;
  workspaceId: string;
  contactId: string;
  channel: Channel;
  campaignId?: string | null;
  enrollmentId?: string | null;
  stepKey?: string | null;
  template: MessageTemplate;
  data?: Record<string, unknown>;
  triggerEventId?: string | null;
  ignoreUnsubscribe?: boolean;
  /** Never track it (a message asking for consent). */
  untracked?: boolean;
};

/**
 * Inserts a queued message with the template it will be rendered from. The same enrollment and
 * step give the same message (created: false), so a retried step job makes no second one.
 * Enqueues nothing: the caller sends `enqueueDelivery` in the same transaction, or delivers itself.
 */
export async function createMessage(
  tx: Db,
  input: CreateMessageInput,
): Promise<{ id: string; created: boolean }> {
  const row = await insertMessage(tx, {
    id: input.id ?? newId('message'),
    workspaceId: input.workspaceId,
    contactId: input.contactId,
    channel: input.channel,
    campaignId: input.campaignId ?? null,
    enrollmentId: input.enrollmentId ?? null,
    stepKey: input.stepKey ?? null,
    template: input.template,
    data: input.data ?? {},
    triggerEventId: input.triggerEventId ?? null,
    ignoreUnsubscribe: input.ignoreUnsubscribe ?? false,
    untracked: input.untracked ?? false,
  });
  if (row) {
    await insertMessageEvent(tx, row, 'queued');
    return { id: row.id, created: true };
  }
  const existing = await findMessageByStep(tx, input.workspaceId, input.enrollmentId!, input.stepKey!);
  return { id: existing.id, created: false };
}

export type CampaignMessageInput = CreateMessageInput & { enrollmentId: string; stepKey: string };

/**
 * createMessage and enqueueDelivery for a batch of campaign steps (a page of a broadcast), in a
 * few statements. Returns each step's message id, made now or before (a retried step job).
 */
export async function createCampaignMessages(
  app: { boss: Boss },
  tx: Db,
  inputs: readonly CampaignMessageInput[],
): Promise<Map<string, string>> {
  const rows = inputs.map((input) => ({
    id: newId('message'),
    workspace_id: input.workspaceId,
    contact_id: input.contactId,
    channel: input.channel,
    campaign_id: input.campaignId ?? null,
    enrollment_id: input.enrollmentId,
    step_key: input.stepKey,
    template: input.template,
    trigger_event_id: input.triggerEventId ?? null,
  }));
  const created = await insertCampaignMessages(tx, rows);
  const made = rows.filter((row) => created.has(row.id));
  await insertMessageEvents(
    tx,
    made.map((row) => ({ workspace_id: row.workspace_id, message_id: row.id, type: 'queued', detail: {} })),
  );
  if (made.length > 0) {
    // One send job per SEND_JOB_MESSAGES messages: a job per message cost the job table (and the
    // worker) an insert, a fetch and a completion each.
    const jobs = [];
    for (let start = 0; start < made.length; start += SEND_JOB_MESSAGES) {
      const messageIds = made.slice(start, start + SEND_JOB_MESSAGES).map((row) => row.id);
      jobs.push({ data: { messageIds } });
    }
    await app.boss.insert(SEND_QUEUE, jobs, { db: transactionalDb(tx) });
  }
  const ids = new Map<string, string>();
  for (const [index, row] of rows.entries()) {
    const id = created.has(row.id)
      ? row.id
      : (await findMessageByStep(tx, row.workspace_id, row.enrollment_id, row.step_key)).id;
    ids.set(inputs[index].enrollmentId, id);
  }
  return ids;
}

/** Sends the `messages.send` job in the caller's transaction: the message and its job commit together. */
export async function enqueueDelivery(
  app: { boss: Boss },
  tx: Db,
  messageId: string,
  startAfter?: Date,
): Promise<void> {
  await app.boss.send(
    SEND_QUEUE,
    { messageId },
    { db: transactionalDb(tx), ...(startAfter ? { startAfter } : {}) },
  );
}

/** A one-off message: whom to, on which channel, and the channel's content fields (ChannelDefinition.transactional). */
export type TransactionalInput = {
  contactId?: string;
  email?: string;
  channel: string;
  data?: Record<string, unknown>;
  ignoreUnsubscribe?: boolean;
} & Record<string, unknown>;

/** The template the channel makes of the content fields (they passed its schema in SendMessageBody). */
function transactionalTemplate(input: TransactionalInput): MessageTemplate {
  const content = channelNamed(input.channel).transactional;
  if (!content) throw new Error(`channel ${input.channel} takes no one-off messages`);
  return content.templateOf(input as never);
}

/**
 * A one-off message now: to the contact named, or the one with the email (made if there is none).
 * With an idempotency key already used, nothing is made and the first message's id comes back.
 */
export async function createTransactional(
  app: { boss: Boss; effects: { contacts: ContactEffects } },
  tx: Tx,
  workspaceId: string,
  input: TransactionalInput,
  idempotencyKey?: string,
): Promise<{ id: string; replayed: boolean }> {
  const id = newId('message');
  if (idempotencyKey) {
    const first = await claimIdempotencyKey(tx, workspaceId, idempotencyKey, id);
    if (first) return { id: first, replayed: true };
  }
  const contactId = await recipientContactId(tx, app.effects.contacts, workspaceId, input);
  await createMessage(tx, {
    id,
    workspaceId,
    contactId,
    channel: input.channel as Channel,
    template: transactionalTemplate(input),
    data: input.data,
    ignoreUnsubscribe: input.ignoreUnsubscribe,
  });
  await enqueueDelivery(app, tx, id);
  return { id, replayed: false };
}

async function recipientContactId(
  tx: Tx,
  effects: ContactEffects,
  workspaceId: string,
  input: TransactionalInput,
): Promise<string> {
  if (input.contactId) return (await getContact(tx, workspaceId, input.contactId)).id;
  const found = await findContactIdByEmail(tx, workspaceId, input.email!);
  if (found) return found;
  return (await createContact(tx, effects, workspaceId, { email: input.email! })).contact.id;
}

export async function listMessages(db: Db, workspaceId: string, filter: MessageFilter, window: PageWindow) {
  return listMessagePage(db, workspaceId, filter, window);
}

/** The console's list: newest first, by keyset (after a message's id), with the same filter. */
export async function listMessagesByKeyset(
  db: Db,
  workspaceId: string,
  filter: MessageFilter,
  page: { afterId: string | null; limit: number },
) {
  return listMessagesAfter(db, workspaceId, filter, page);
}

export async function getMessageWithTimeline(db: Db, workspaceId: string, messageId: string) {
  const message = await findMessage(db, workspaceId, messageId);
  if (!message) throw new NotFoundError('Message');
  return { message, timeline: await listMessageEvents(db, workspaceId, messageId) };
}

/** The message with what it rendered, its timeline and its tracking hits. */
export async function getMessageDetail(db: Db, workspaceId: string, messageId: string) {
  const message = await findMessageDetail(db, workspaceId, messageId);
  if (!message) throw new NotFoundError('Message');
  const timeline = await listMessageEvents(db, workspaceId, messageId);
  return { message, timeline, hits: await listMessageHits(db, workspaceId, messageId) };
}

export async function getSubscriptions(db: Db, workspaceId: string, contactId: string) {
  const contact = await getContact(db, workspaceId, contactId);
  return { contactId: contact.id, rows: await listSubscriptions(db, workspaceId, contact.id) };
}

/**
 * Sets channels' states. An opt-out here is an opt-out like any other (webhook, enrollments
 * exited); a resubscribe also lifts a hard bounce or complaint: the workspace vouches for the address.
 */
export async function putSubscriptions(
  tx: Tx,
  workspaceId: string,
  contactId: string,
  changes: readonly { channel: SubscriptionChannel; status: 'subscribed' | 'unsubscribed' }[],
) {
  const contact = await getContact(tx, workspaceId, contactId);
  for (const change of changes) {
    if (change.status === 'unsubscribed') {
      await unsubscribeContact(tx, workspaceId, contact.id, change.channel, 'api', null);
    } else {
      await setSubscription(tx, workspaceId, contact.id, { ...change, reason: null, messageId: null });
    }
  }
  return getSubscriptions(tx, workspaceId, contact.id);
}
