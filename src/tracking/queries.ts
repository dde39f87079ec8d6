// SQL of tracking hits (message_hits, sql/0021) and the workspace's tracking switches. The
// exceptions to "a feature reads its own tables": the hits are joined to the messages they were
// made on (workspace, contact, campaign, send time), read-only; messages shows the hits it owns.
import { z } from 'zod';
import { type Db, jsonbRows, sql } from '../db/pool.ts';
import type { HitKind, MachineReason } from './classify.ts';

export type NewHit = {
  messageId: string;
  kind: HitKind;
  url: string | null;
  method: string;
  userAgent: string | null;
  reasons: MachineReason[];
  occurredAt: string;
};

/**
 * At most this many hits of one token (a message's pixel, honeypot, or link to one URL) are
 * recorded per TOKEN_WINDOW; later ones still get their image or redirect, and are not stored.
 * A person clicks a link a few times at most; past this only a script, or a forwarded mail
 * passed around, is hitting it, and storing every hit would let anyone fill the table.
 */
export const MAX_HITS_PER_TOKEN = 20;
const TOKEN_WINDOW = sql.fragment`interval '1 hour'`;

/**
 * Stores a group of hits, each within its token's bound (counted over the hits stored before and
 * those ahead of it in the group). Groups written at once (another writer, another process) would
 * each count without the other's hits and could both take the last places, so a group first takes
 * a lock per message, in one order, and counts in a statement of its own after it. A hit on a
 * message that no longer exists (erased with its contact) has no workspace and nothing to count:
 * it is left out.
 */
export async function insertHits(pool: Db, hits: readonly NewHit[]): Promise<void> {
  const rows = hits.map((hit) => ({
    message_id: hit.messageId,
    kind: hit.kind,
    url: hit.url,
    method: hit.method,
    user_agent: hit.userAgent,
    human: hit.reasons.length === 0,
    reasons: hit.reasons,
    occurred_at: hit.occurredAt,
  }));
  const messageIds = [...new Set(hits.map((hit) => hit.messageId))].sort();
  await pool.transaction(async (db) => {
    await db.query(sql.unsafe`
      select pg_advisory_xact_lock(hashtextextended('message-hits:' || id, 0))
      from unnest(${sql.array(messageIds, 'text')}) as id order by id
    `);
    await insertWithinBound(db, rows);
  });
}

async function insertWithinBound(db: Db, rows: object[]): Promise<void> {
  await db.query(sql.typeAlias('void')`
    insert into message_hits (workspace_id, message_id, kind, url, method, user_agent, human, reasons, occurred_at)
    select m.workspace_id, h.message_id, h.kind, h.url, h.method, h.user_agent, h.human, h.reasons, h.occurred_at
    from (
      select r.*, row_number() over (partition by r.message_id, r.kind, r.url order by r.occurred_at) as nth
      from jsonb_to_recordset(${jsonbRows(rows)}) as r(message_id text, kind text, url text, method text,
        user_agent text, human boolean, reasons text[], occurred_at timestamptz)
    ) h
    join messages m on m.id = h.message_id
    where h.nth + (
      select count(*) from message_hits x
      where x.workspace_id = m.workspace_id and x.message_id = h.message_id
        and x.occurred_at > h.occurred_at - ${TOKEN_WINDOW}
        and x.kind = h.kind and x.url is not distinct from h.url
    ) <= ${MAX_HITS_PER_TOKEN}
  `);
}

export const PendingHit = z.object({
  id: z.string(),
  workspace_id: z.string(),
  message_id: z.string(),
  kind: z.enum(['open', 'click', 'honeypot']),
  url: z.string().nullable(),
  reasons: z.array(z.string()),
  occurred_at: z.string(),
  contact_id: z.string(),
  campaign_id: z.string().nullable(),
  channel: z.string(),
  sent_at: z.string().nullable(),
});
export type PendingHit = z.infer<typeof PendingHit>;

/** Workspaces with hits old enough to classify, oldest first. */
export async function workspacesWithSettledHits(db: Db, settleMs: number) {
  return db.anyFirst(sql.type(z.object({ workspace_id: z.string() }))`
    select workspace_id from message_hits
    where classified_at is null and occurred_at < now() - ${settleMs} * interval '1 ms'
    group by workspace_id order by min(occurred_at)
  `);
}

/** Locks a page of one workspace's settled, unclassified hits (another worker skips them). */
export async function claimSettledHits(db: Db, workspaceId: string, settleMs: number, limit: number) {
  return db.any(sql.type(PendingHit)`
    select h.id::text, h.workspace_id, h.message_id, h.kind, h.url, h.reasons, h.occurred_at,
      m.contact_id, m.campaign_id, m.channel, m.sent_at
    from message_hits h join messages m on m.workspace_id = h.workspace_id and m.id = h.message_id
    where h.classified_at is null and h.workspace_id = ${workspaceId}
      and h.occurred_at < now() - ${settleMs} * interval '1 ms'
    order by h.occurred_at, h.id
    limit ${limit}
    for update of h skip locked
  `);
}

export const NeighbourHit = z.object({
  id: z.string(),
  message_id: z.string(),
  kind: z.enum(['open', 'click', 'honeypot']),
  url: z.string().nullable(),
  occurred_at: z.string(),
});

/** Every click and honeypot hit of these messages between the two times. */
export async function hitsAround(
  db: Db,
  workspaceId: string,
  messageIds: string[],
  from: string,
  to: string,
) {
  return db.any(sql.type(NeighbourHit)`
    select id::text, message_id, kind, url, occurred_at from message_hits
    where workspace_id = ${workspaceId} and message_id = any(${sql.array(messageIds, 'text')})
      and kind in ('click', 'honeypot') and occurred_at between ${from} and ${to}
  `);
}

/**
 * The (message, kind, URL) of every human open and click these messages had before: the ones that
 * took effect. Read only while no other run classifies (the job is stately).
 */
export async function humanHitsBefore(db: Db, workspaceId: string, messageIds: string[]) {
  return db.any(sql.type(z.object({ message_id: z.string(), kind: z.string(), url: z.string().nullable() }))`
    select distinct message_id, kind, url from message_hits
    where workspace_id = ${workspaceId} and message_id = any(${sql.array(messageIds, 'text')})
      and kind in ('open', 'click') and human and classified_at is not null
  `);
}

export async function markClassified(
  db: Db,
  workspaceId: string,
  results: readonly { id: string; human: boolean; reasons: string[] }[],
) {
  await db.query(sql.typeAlias('void')`
    update message_hits h set human = r.human, reasons = r.reasons, classified_at = now()
    from jsonb_to_recordset(${jsonbRows(results)}) as r(id bigint, human boolean, reasons text[])
    where h.workspace_id = ${workspaceId} and h.id = r.id
  `);
}

/** Whether any hit waits to be classified (the worker keeps a job queued while one does). */
export async function hasUnclassifiedHits(db: Db) {
  return db.exists(sql.unsafe`select 1 from message_hits where classified_at is null`);
}

export const TrackingSwitchesRow = z.object({ opens: z.boolean(), clicks: z.boolean() });

export async function readWorkspaceTracking(db: Db, workspaceId: string) {
  return db.maybeOne(sql.type(TrackingSwitchesRow)`
    select coalesce((tracking->>'opens')::boolean, true) as opens,
      coalesce((tracking->>'clicks')::boolean, true) as clicks
    from workspaces where id = ${workspaceId}
  `);
}

export async function writeWorkspaceTracking(
  db: Db,
  workspaceId: string,
  switches: Partial<z.infer<typeof TrackingSwitchesRow>>,
) {
  await db.query(sql.typeAlias('void')`
    update workspaces set tracking = tracking || ${sql.jsonb(switches)} where id = ${workspaceId}
  `);
}
