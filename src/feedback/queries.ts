// SQL for provider feedback: the receipt log of each endpoint and the provider events already
// applied. Every query filters by workspace first.
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { FEEDBACK_PROVIDERS } from '../channels/index.ts';
import { type PageWindow, selectPage } from '../db/paginate.ts';
import { type Db, sql } from '../db/pool.ts';
import type { FeedbackKind } from './events.ts';

export const EVENT_OUTCOMES = ['applied', 'duplicate', 'unknown_message', 'ignored'] as const;
export type EventOutcome = (typeof EVENT_OUTCOMES)[number];
export type EventSummary = {
  eventId: string | null;
  type: string;
  outcome: EventOutcome;
  messageId: string | null;
};

/**
 * Claims the provider's event; false when it was claimed before (a replay). A concurrent
 * duplicate waits on the primary key until the first commits, then finds it taken.
 */
export async function claimFeedbackEvent(
  tx: Db,
  event: {
    workspaceId: string;
    provider: string;
    eventId: string;
    receiptId: string;
    kind: FeedbackKind;
    messageId: string | null;
    email: string | null;
    detail: Record<string, unknown>;
  },
): Promise<boolean> {
  const claimed = await tx.maybeOne(sql.type(z.object({ event_id: z.string() }))`
    insert into email_feedback_events (workspace_id, provider, event_id, receipt_id, kind, message_id, email, detail)
    values (${event.workspaceId}, ${event.provider}, ${event.eventId}, ${event.receiptId}, ${event.kind},
            ${event.messageId}, ${event.email}, ${sql.jsonb(event.detail as never)})
    on conflict (workspace_id, provider, event_id) do nothing
    returning event_id
  `);
  return claimed !== null;
}

export type NewReceipt = {
  id: string;
  workspaceId: string;
  endpointId: string;
  provider: string;
  responseStatus: number;
  outcome: string;
  events: EventSummary[];
  error: string | null;
};

export async function insertFeedbackReceipt(db: Db, receipt: NewReceipt) {
  await db.query(sql.typeAlias('void')`
    insert into email_feedback_receipts (workspace_id, id, endpoint_id, provider, response_status, outcome, events, error)
    values (${receipt.workspaceId}, ${receipt.id}, ${receipt.endpointId}, ${receipt.provider},
            ${receipt.responseStatus}, ${receipt.outcome}, ${sql.jsonb(receipt.events as never)}, ${receipt.error})
  `);
}

export const ReceiptRow = z.object({
  id: z.string(),
  endpoint_id: z.string(),
  provider: z.enum(FEEDBACK_PROVIDERS),
  response_status: z.number().int(),
  outcome: z.string(),
  events: z.array(
    z.object({
      eventId: z.string().nullable(),
      type: z.string(),
      outcome: z.enum(EVENT_OUTCOMES),
      messageId: z.string().nullable(),
    }),
  ),
  error: z.string().nullable(),
  received_at: z.string(),
});

export async function listFeedbackReceiptPage(
  db: Db,
  workspaceId: string,
  filter: { provider?: string },
  window: PageWindow,
) {
  const conditions: FragmentSqlToken[] = [sql.fragment`workspace_id = ${workspaceId}`];
  if (filter.provider) conditions.push(sql.fragment`provider = ${filter.provider}`);
  return selectPage(
    db,
    ReceiptRow,
    {
      columns: sql.fragment`id, endpoint_id, provider, response_status, outcome, events, error, received_at`,
      from: sql.fragment`email_feedback_receipts`,
      where: sql.join(conditions, sql.fragment` and `),
      orderBy: sql.fragment`received_at desc, id desc`,
    },
    window,
  );
}
