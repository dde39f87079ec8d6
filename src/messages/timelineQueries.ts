// SQL of a message's timeline (its events) and of its tracking hits (written by the tracking
// feature), and the class of a hit.
import { z } from 'zod';
import { type Db, jsonbRows, sql } from '../db/pool.ts';

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
