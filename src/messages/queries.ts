// SQL for message rows: insert, find, list. Every query filters by workspace first except the
// worker's reads by message id alone (the job payload carries only ids it made). The claim and its
// outcome are in claimQueries.ts, the timeline and hits in timelineQueries.ts.
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { type PageWindow, selectPage } from '../db/paginate.ts';
import { type Db, jsonbRows, sql } from '../db/pool.ts';
import {
  type Channel,
  columns,
  MessageDetailRow,
  MessageRow,
  type MessageStatus,
  type MessageTemplate,
} from './rows.ts';

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

export type MessageFilter = {
  contactId?: string;
  campaignId?: string;
  channel?: Channel;
  status?: MessageStatus;
  /** A campaign step's path (`3.then.0`); meant with campaignId, as paths repeat across campaigns. */
  stepKey?: string;
};

function filterConditions(workspaceId: string, filter: MessageFilter): FragmentSqlToken[] {
  const conditions: FragmentSqlToken[] = [sql.fragment`workspace_id = ${workspaceId}`];
  if (filter.contactId) conditions.push(sql.fragment`contact_id = ${filter.contactId}`);
  if (filter.campaignId) conditions.push(sql.fragment`campaign_id = ${filter.campaignId}`);
  if (filter.channel) conditions.push(sql.fragment`channel = ${filter.channel}`);
  if (filter.status) conditions.push(sql.fragment`status = ${filter.status}`);
  if (filter.stepKey) conditions.push(sql.fragment`step_key = ${filter.stepKey}`);
  return conditions;
}

export async function listMessagePage(
  db: Db,
  workspaceId: string,
  filter: MessageFilter,
  window: PageWindow,
) {
  const conditions = filterConditions(workspaceId, filter);
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

/**
 * Newest first by keyset: the rows after the message `afterId` (its created_at and id, read by the
 * same statement, so the position is exact to the microsecond), never OFFSET. An `afterId` that is
 * not a message of the workspace starts nowhere: an empty page.
 */
export async function listMessagesAfter(
  db: Db,
  workspaceId: string,
  filter: MessageFilter,
  page: { afterId: string | null; limit: number },
) {
  return db.any(messagesAfterQuery(workspaceId, filter, page));
}

/** listMessagesAfter's statement (plan tests explain it). */
export function messagesAfterQuery(
  workspaceId: string,
  filter: MessageFilter,
  page: { afterId: string | null; limit: number },
) {
  const conditions = filterConditions(workspaceId, filter);
  if (page.afterId)
    conditions.push(sql.fragment`(created_at, id) < (
      select created_at, id from messages where workspace_id = ${workspaceId} and id = ${page.afterId})`);
  return sql.type(MessageRow)`
    select ${columns} from messages where ${sql.join(conditions, sql.fragment` and `)}
    order by created_at desc, id desc limit ${page.limit}
  `;
}
