// SQL for messages and their timeline. Every query filters by workspace first except the two the
// worker runs by message id alone (the job payload and the lease sweep carry only ids it made).
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { noSendRate } from '../channels/index.ts';
import { type PageWindow, selectPage } from '../db/paginate.ts';
import { type Db, idArray, jsonbRows, sql } from '../db/pool.ts';

export const CHANNELS = ['email', 'push', 'telegram'] as const;
export type Channel = (typeof CHANNELS)[number];
export const MESSAGE_STATUSES = ['queued', 'sending', 'sent', 'failed', 'bounced', 'suppressed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const PUSH_URGENCIES = ['very-low', 'low', 'normal', 'high'] as const;

/** A push step's notification options (its title is `subject`, its body `text`). */
export const PushOptions = z.object({
  url: z.string().nullish(),
  icon: z.string().nullish(),
  urgency: z.enum(PUSH_URGENCIES).nullish(),
  ttlSeconds: z.number().int().nullish(),
  topic: z.string().nullish(),
});

export const MessageTemplate = z.object({
  subject: z.string(),
  /** An email without HTML (text only) has none: its HTML part shows the text as written. */
  html: z.string().nullish(),
  text: z.string().nullish(),
  /** An email's preheader (plain text, a template like the subject). */
  preheader: z.string().nullish(),
  push: PushOptions.optional(),
  /** A Telegram step's parse mode (its text is in `text`). */
  parseMode: z.enum(['HTML', 'MarkdownV2']).nullish(),
});
export type MessageTemplate = z.infer<typeof MessageTemplate>;

/**
 * What a send rendered, as it went to the channel (an email's HTML with its tracking and
 * preheader), kept on the row: what the contact got. Personal data: it goes with the row (retention,
 * and the contact's erasure by the foreign key).
 */
export const RenderedContent = z.discriminatedUnion('channel', [
  z.object({
    channel: z.literal('email'),
    subject: z.string(),
    preheader: z.string().optional(),
    html: z.string(),
    text: z.string(),
  }),
  z.object({
    channel: z.literal('push'),
    title: z.string(),
    body: z.string(),
    url: z.string().optional(),
    icon: z.string().optional(),
  }),
  z.object({
    channel: z.literal('telegram'),
    text: z.string(),
    parseMode: z.enum(['HTML', 'MarkdownV2']).optional(),
  }),
]);
export type RenderedContent = z.infer<typeof RenderedContent>;

/** The line a list shows: an email's subject, a push's title (a Telegram text has none). */
export function renderedSubjectOf(content: RenderedContent): string | null {
  if (content.channel === 'email') return content.subject;
  if (content.channel === 'push') return content.title;
  return null;
}

export const MessageRow = z.object({
  workspace_id: z.string(),
  id: z.string(),
  contact_id: z.string(),
  channel: z.enum(CHANNELS),
  campaign_id: z.string().nullable(),
  enrollment_id: z.string().nullable(),
  step_key: z.string().nullable(),
  status: z.enum(MESSAGE_STATUSES),
  template: MessageTemplate,
  data: z.record(z.string(), z.unknown()),
  trigger_event_id: z.string().nullable(),
  ignore_unsubscribe: z.boolean(),
  /** Never tracked, whatever the switches: it asks for consent (a double opt-in confirmation). */
  untracked: z.boolean(),
  recipient: z.string().nullable(),
  rendered_at: z.string().nullable(),
  rendered_subject: z.string().nullable(),
  provider_id: z.string().nullable(),
  provider_response: z.string().nullable(),
  error: z.string().nullable(),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  rate_slot_at: z.string().nullable(),
  lease_until: z.string().nullable(),
  created_at: z.string(),
  sent_at: z.string().nullable(),
  updated_at: z.string(),
});
export type MessageRow = z.infer<typeof MessageRow>;

const columns = sql.fragment`
  workspace_id, id, contact_id, channel, campaign_id, enrollment_id, step_key, status, template, data,
  trigger_event_id, ignore_unsubscribe, untracked, recipient, rendered_at, rendered_subject, provider_id, provider_response, error,
  attempts, next_attempt_at, rate_slot_at, lease_until, created_at, sent_at, updated_at
`;

export type NewMessage = {
  id: string;
  workspaceId: string;
  contactId: string;
  channel: Channel;
  campaignId: string | null;
  enrollmentId: string | null;
  stepKey: string | null;
  template: MessageTemplate;
  data: Record<string, unknown>;
  triggerEventId: string | null;
  ignoreUnsubscribe: boolean;
  untracked: boolean;
};

/** Null when the enrollment's step already has its message (the unique key). */
export async function insertMessage(db: Db, m: NewMessage): Promise<MessageRow | null> {
  return db.maybeOne(sql.type(MessageRow)`
    insert into messages (workspace_id, id, contact_id, channel, campaign_id, enrollment_id, step_key,
      template, data, trigger_event_id, ignore_unsubscribe, untracked)
    values (${m.workspaceId}, ${m.id}, ${m.contactId}, ${m.channel}, ${m.campaignId}, ${m.enrollmentId},
      ${m.stepKey}, ${sql.jsonb(m.template)}, ${sql.jsonb(m.data as never)}, ${m.triggerEventId},
      ${m.ignoreUnsubscribe}, ${m.untracked})
    on conflict (workspace_id, enrollment_id, step_key) do nothing
    returning ${columns}
  `);
}

export type NewCampaignMessage = {
  id: string;
  workspace_id: string;
  contact_id: string;
  channel: Channel;
  campaign_id: string | null;
  enrollment_id: string;
  step_key: string;
  template: MessageTemplate;
  trigger_event_id: string | null;
};

/** insertMessage for many campaign steps; returns the ids inserted (a step that has its message keeps it). */
export async function insertCampaignMessages(db: Db, rows: readonly NewCampaignMessage[]) {
  if (rows.length === 0) return new Set<string>();
  const ids = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
    insert into messages (workspace_id, id, contact_id, channel, campaign_id, enrollment_id, step_key,
      template, trigger_event_id)
    select workspace_id, id, contact_id, channel, campaign_id, enrollment_id, step_key, template, trigger_event_id
    from jsonb_to_recordset(${jsonbRows(rows)}) as r(workspace_id text, id text, contact_id text,
      channel text, campaign_id text, enrollment_id text, step_key text, template jsonb, trigger_event_id text)
    on conflict (workspace_id, enrollment_id, step_key) do nothing
    returning id
  `);
  return new Set(ids);
}

export async function findMessageByStep(db: Db, workspaceId: string, enrollmentId: string, stepKey: string) {
  return db.one(sql.type(MessageRow)`
    select ${columns} from messages
    where workspace_id = ${workspaceId} and enrollment_id = ${enrollmentId} and step_key = ${stepKey}
  `);
}

export async function findMessage(db: Db, workspaceId: string, messageId: string) {
  return db.maybeOne(sql.type(MessageRow)`
    select ${columns} from messages where workspace_id = ${workspaceId} and id = ${messageId}
  `);
}

export const MessageDetailRow = MessageRow.extend({ rendered: RenderedContent.nullable() });

/** findMessage with what was sent: the bodies only this read returns (lists and the worker never need them). */
export async function findMessageDetail(db: Db, workspaceId: string, messageId: string) {
  return db.maybeOne(sql.type(MessageDetailRow)`
    select ${columns}, rendered from messages where workspace_id = ${workspaceId} and id = ${messageId}
  `);
}

/** The worker's read: the job payload carries the id only. */
export async function findMessageById(db: Db, messageId: string) {
  return (await findMessagesByIds(db, [messageId]))[0] ?? null;
}

export async function findMessagesByIds(db: Db, messageIds: readonly string[]) {
  return db.any(sql.type(MessageRow)`
    select ${columns} from messages where id = any(${sql.array(messageIds, 'text')})
  `);
}

/**
 * queued → sending with a lease, in its own statement: only one caller wins each row, and the claim
 * commits before the provider is called. Leaves out rows that are not queued (sent, final or
 * claimed), wait for a retry or their send slot (their job starts at next_attempt_at by the same
 * database clock), or need a send slot first: their channel has a rate and the attempt has
 * reserved none (sendRate.ts reserves it; the claim then consumes it).
 */
export async function claimMessage(db: Db, messageId: string, leaseMs: number) {
  return (await claimMessages(db, [messageId], leaseMs))[0] ?? null;
}

export async function claimMessages(db: Db, messageIds: readonly string[], leaseMs: number) {
  return db.any(sql.type(MessageRow)`
    update messages
    set status = 'sending', attempts = attempts + 1, lease_until = now() + ${leaseMs} * interval '1 ms',
        next_attempt_at = null, rate_slot_at = null, updated_at = now()
    where id = any(${sql.array(messageIds, 'text')}) and status = 'queued'
      and (next_attempt_at is null or next_attempt_at <= now())
      and (rate_slot_at is not null or ${noSendRate(sql.fragment`messages.workspace_id`, sql.fragment`messages.channel`)})
    returning ${columns}
  `);
}

/** The queued message, locked, when its attempt has no send slot yet; null otherwise. */
export async function lockMessageWithoutSlot(db: Db, messageId: string) {
  return db.maybeOne(sql.type(MessageRow)`
    select ${columns} from messages
    where id = ${messageId} and status = 'queued' and rate_slot_at is null
    for update
  `);
}

/** The attempt's send slot: it may not be claimed before. */
export async function setRateSlot(db: Db, messageId: string, at: Date) {
  await db.query(sql.typeAlias('void')`
    update messages set rate_slot_at = ${at.toISOString()}, next_attempt_at = ${at.toISOString()}
    where id = ${messageId}
  `);
}

/** Milliseconds until the message's send slot, by the database's clock; null without one. */
export async function rateSlotWaitMs(db: Db, messageId: string) {
  return db.maybeOneFirst(sql.type(z.object({ wait_ms: z.number().nullable() }))`
    select extract(epoch from rate_slot_at - now())::float8 * 1000 as wait_ms
    from messages where id = ${messageId} and status = 'queued'
  `);
}

export type Outcome = {
  status: MessageStatus;
  recipient?: string | null;
  providerId?: string | null;
  providerResponse?: string | null;
  error?: string | null;
  nextAttemptAt?: Date | null;
  /** What was rendered and handed to the channel; absent when nothing was (suppressed, a template error). */
  rendered?: RenderedContent;
  /** The attempt did not count (this process lacked a key): the claim's increment is undone. */
  attemptGivenBack?: boolean;
};

/** Records the outcome of a claimed send; false when the claim was lost (swept as interrupted). */
export async function finishClaim(db: Db, messageId: string, outcome: Outcome): Promise<boolean> {
  const { rendered } = outcome;
  const result = await db.query(sql.typeAlias('void')`
    update messages
    set status = ${outcome.status}, lease_until = null, updated_at = now(),
        attempts = attempts - case when ${outcome.attemptGivenBack ?? false} then 1 else 0 end,
        recipient = coalesce(${outcome.recipient ?? null}, recipient),
        provider_id = ${outcome.providerId ?? null},
        provider_response = ${outcome.providerResponse ?? null},
        error = ${outcome.error ?? null},
        next_attempt_at = ${outcome.nextAttemptAt?.toISOString() ?? null},
        rendered_at = case when ${outcome.rendered !== undefined} then now() else rendered_at end,
        rendered_subject = case when ${outcome.rendered !== undefined}
          then ${rendered ? renderedSubjectOf(rendered) : null} else rendered_subject end,
        rendered = coalesce(${rendered ? sql.jsonb(rendered) : null}, rendered),
        sent_at = case when ${outcome.status} = 'sent' then now() else sent_at end
    where id = ${messageId} and status = 'sending'
  `);
  return result.rowCount === 1;
}

export type SentOutcome = {
  id: string;
  recipient: string | null;
  providerId: string;
  providerResponse: string;
  rendered: RenderedContent;
};

/** Records sends the provider accepted, in one statement; returns the ids whose claim still held. */
export async function finishSentClaims(db: Db, sent: readonly SentOutcome[]): Promise<Set<string>> {
  if (sent.length === 0) return new Set();
  const rows = sent.map((row) => ({
    id: row.id,
    recipient: row.recipient,
    provider_id: row.providerId,
    provider_response: row.providerResponse,
    rendered_subject: renderedSubjectOf(row.rendered),
    rendered: row.rendered,
  }));
  const ids = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
    update messages m
    set status = 'sent', lease_until = null, updated_at = now(), recipient = coalesce(r.recipient, m.recipient),
        provider_id = r.provider_id, provider_response = r.provider_response, error = null,
        next_attempt_at = null, rendered_at = now(), rendered_subject = r.rendered_subject,
        rendered = r.rendered, sent_at = now()
    from jsonb_to_recordset(${jsonbRows(rows)})
      as r(id text, recipient text, provider_id text, provider_response text, rendered_subject text,
        rendered jsonb)
    where m.id = r.id and m.id = any(${idArray(rows)}) and m.status = 'sending'
    returning m.id
  `);
  return new Set(ids);
}

/** Claims whose lease passed with no outcome: the worker died mid-send. Never resent. */
export async function failExpiredLeases(db: Db, limit: number) {
  return db.any(sql.type(MessageRow)`
    update messages
    set status = 'failed', error = 'interrupted', lease_until = null, updated_at = now()
    where (workspace_id, id) in (
      select workspace_id, id from messages where status = 'sending' and lease_until < now()
      order by lease_until limit ${limit} for update skip locked
    )
    returning ${columns}
  `);
}

export type MessageFilter = {
  contactId?: string;
  campaignId?: string;
  channel?: Channel;
  status?: MessageStatus;
};

export async function listMessagePage(
  db: Db,
  workspaceId: string,
  filter: MessageFilter,
  window: PageWindow,
) {
  const conditions: FragmentSqlToken[] = [sql.fragment`workspace_id = ${workspaceId}`];
  if (filter.contactId) conditions.push(sql.fragment`contact_id = ${filter.contactId}`);
  if (filter.campaignId) conditions.push(sql.fragment`campaign_id = ${filter.campaignId}`);
  if (filter.channel) conditions.push(sql.fragment`channel = ${filter.channel}`);
  if (filter.status) conditions.push(sql.fragment`status = ${filter.status}`);
  return selectPage(
    db,
    MessageRow,
    {
      columns,
      from: sql.fragment`messages`,
      where: sql.join(conditions, sql.fragment` and `),
      orderBy: sql.fragment`created_at desc, id desc`,
    },
    window,
  );
}

export const MessageEventRow = z.object({
  type: z.string(),
  detail: z.record(z.string(), z.unknown()),
  occurred_at: z.string(),
});

export async function insertMessageEvent(
  db: Db,
  message: { workspace_id: string; id: string },
  type: string,
  detail: Record<string, unknown> = {},
) {
  await db.query(sql.typeAlias('void')`
    insert into message_events (workspace_id, message_id, type, detail)
    values (${message.workspace_id}, ${message.id}, ${type}, ${sql.jsonb(detail as never)})
  `);
}

/** Timeline entries of several messages in one statement. */
export async function insertMessageEvents(
  db: Db,
  entries: readonly {
    workspace_id: string;
    message_id: string;
    type: string;
    detail: Record<string, unknown>;
  }[],
) {
  if (entries.length === 0) return;
  await db.query(sql.typeAlias('void')`
    insert into message_events (workspace_id, message_id, type, detail)
    select workspace_id, message_id, type, detail
    from jsonb_to_recordset(${jsonbRows(entries)}) as r(workspace_id text, message_id text, type text, detail jsonb)
  `);
}

export async function listMessageEvents(db: Db, workspaceId: string, messageId: string) {
  return db.any(sql.type(MessageEventRow)`
    select type, detail, occurred_at from message_events
    where workspace_id = ${workspaceId} and message_id = ${messageId}
    order by id
  `);
}

/**
 * Claims the key for the message; returns the message that already holds it, or null when the
 * claim is new. A concurrent request with the key waits on the primary key until the first commits.
 */
export async function claimIdempotencyKey(db: Db, workspaceId: string, key: string, messageId: string) {
  const inserted = await db.maybeOne(sql.type(z.object({ message_id: z.string() }))`
    insert into message_idempotency_keys (workspace_id, key, message_id)
    values (${workspaceId}, ${key}, ${messageId})
    on conflict (workspace_id, key) do nothing
    returning message_id
  `);
  if (inserted) return null;
  return db.oneFirst(sql.type(z.object({ message_id: z.string() }))`
    select message_id from message_idempotency_keys where workspace_id = ${workspaceId} and key = ${key}
  `);
}

export async function pruneMessageIdempotencyKeys(db: Db): Promise<number> {
  const result = await db.query(sql.typeAlias('void')`
    delete from message_idempotency_keys where created_at < now() - interval '7 days'
  `);
  return result.rowCount;
}

export const HIT_CLASSES = ['human', 'proxy', 'machine'] as const;
export type HitClass = (typeof HIT_CLASSES)[number];
/**
 * The reason that makes a hit a privacy proxy's (Apple Mail Privacy Protection, Gmail's and Yahoo's
 * image proxies): neither a person (it loads every pixel, read or not) nor a scanner (a person may
 * well have read the mail behind it), so counted apart. The tracking feature decides the reasons.
 */
export const PROXY_REASON = 'mail_proxy';

export function hitClass(hit: { human: boolean; reasons: readonly string[] }): HitClass {
  if (hit.human) return 'human';
  return hit.reasons.includes(PROXY_REASON) ? 'proxy' : 'machine';
}

export const HitRow = z.object({
  id: z.string(),
  kind: z.enum(['open', 'click', 'honeypot']),
  url: z.string().nullable(),
  human: z.boolean(),
  reasons: z.array(z.string()),
  method: z.string(),
  user_agent: z.string().nullable(),
  occurred_at: z.string(),
  classified_at: z.string().nullable(),
});

/** The tracking hits of a message (written by the tracking feature), oldest first. */
export async function listMessageHits(db: Db, workspaceId: string, messageId: string) {
  return db.any(sql.type(HitRow)`
    select id::text, kind, url, human, reasons, method, user_agent, occurred_at, classified_at
    from message_hits where workspace_id = ${workspaceId} and message_id = ${messageId}
    order by occurred_at, id
  `);
}
