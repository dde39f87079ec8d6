// SQL of a send's claim and its outcome: queued → sending with a lease (one winner per row,
// committed before the provider is called), the send slot of a rated channel, and the outcome.
import { z } from 'zod';
import { noSendRate } from '../channels/index.ts';
import { type Db, idArray, jsonbRows, sql } from '../db/pool.ts';
import { columns, MessageRow, type MessageStatus, type RenderedContent, renderedSubjectOf } from './rows.ts';

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
