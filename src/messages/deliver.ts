// The one place that sends, a batch of messages at a time (one is a batch of one). Order of the
// side effects, and why:
//   1. claim the rows (queued → sending, with a lease) in one statement, committed BEFORE the
//      provider is called: a retried job, a second worker or a crash after the send finds a row
//      claimed or final and sends nothing. At most one send per message, whatever fails.
//   2. suppression (opt-outs, hard bounces, complaints, soft bounces, no address): recorded, never sent.
//   3. render with the templates kit (and add tracking); a template error fails the message with that error.
//   4. call the channel, outside any transaction (a provider can take seconds).
//   5. record the outcome, its timeline entry and its webhook in one transaction (outcomes.ts);
//      the accepted sends of a batch in one transaction together.
// Before 1, an attempt whose channel has a rate reserves its send slot and waits for it (sendRate.ts):
// the claim leaves it out until it has one.
// A worker killed between 1 and 5 leaves the row claimed; the lease sweep marks it failed with
// error 'interrupted' (sweep.ts). It is not resent: the provider may have accepted it.
import {
  channelNamed,
  type OutgoingMessage,
  type SendFailure,
  type SendOutcome,
  sendMessage,
} from '../channels/index.ts';
import type { AppContext } from '../core/context.ts';
import { reportMissingKey } from '../secrets/index.ts';
import { TemplateError } from '../templates/index.ts';
import { buildOutgoing } from './build.ts';
import { claimMessages } from './claimQueries.ts';
import { type DeliveryContext, findDeliveryContexts } from './contextQueries.ts';
import { recordFailure, recordOutcome, recordSent, type SentDelivery } from './outcomes.ts';
import { findMessagesByIds } from './queries.ts';
import type { MessageRow, MessageStatus, RenderedContent } from './rows.ts';
import { reserveSlots } from './sendRate.ts';
import { takeSendSlot } from './sendSlots.ts';
import { findSuppressions } from './subscriptionQueries.ts';

type Services = AppContext;

/** Sends the message if it is due; `paced`: its send slot is already settled (sendRate.ts). */
export async function deliverMessage(
  app: Services,
  messageId: string,
  paced = false,
): Promise<MessageStatus> {
  // Not found: erased with its contact since it was queued; nothing to send, nothing to record.
  return (await deliverMessages(app, [messageId], paced)).get(messageId) ?? 'failed';
}

/**
 * Delivers a batch (a page of a broadcast's send jobs): one claim, one read of the contacts and
 * one of their opt-outs for all, the sends in parallel through the pooled transport, and the
 * accepted ones recorded together. Returns the status of each message that still exists. Those the
 * claim left out are left alone (already claimed, final, or waiting for a retry or their slot),
 * except an attempt whose channel has a rate and that has no slot yet: unless `paced` (its slot is
 * settled), it reserves one and is sent now if the slot is due, else by its paced job.
 */
export async function deliverMessages(
  app: Services,
  messageIds: readonly string[],
  paced = false,
): Promise<Map<string, MessageStatus>> {
  if (messageIds.length === 0) return new Map();
  const claimed = await claimMessages(app.db, messageIds, app.config.MESSAGE_SEND_LEASE_MS);
  const claimedIds = new Set(claimed.map((message) => message.id));
  const unclaimed = messageIds.filter((id) => !claimedIds.has(id));
  // Both halves run to the end before a failure of either is thrown: no send is left unrecorded.
  const [left, sent] = await Promise.allSettled([
    unclaimed.length > 0 ? settleUnclaimed(app, unclaimed, paced) : new Map<string, MessageStatus>(),
    sendClaimed(app, claimed),
  ]);
  if (left.status === 'rejected') throw left.reason;
  if (sent.status === 'rejected') throw sent.reason;
  return new Map([...left.value, ...sent.value]);
}

/** The status of messages the claim left out, after reserving the send slots they need (and sending those due now). */
async function settleUnclaimed(app: Services, messageIds: readonly string[], paced: boolean) {
  const rows = await findMessagesByIds(app.db, messageIds);
  const statuses = new Map(rows.map((row) => [row.id, row.status]));
  const due = paced ? [] : await reserveSlots(app, rows);
  for (const [id, status] of await deliverMessages(app, due, true)) statuses.set(id, status);
  return statuses;
}

/** Sends claimed messages; the accepted ones are recorded together, any other outcome by its attempt. */
async function sendClaimed(app: Services, claimed: readonly MessageRow[]) {
  const statuses = new Map<string, MessageStatus>();
  if (claimed.length === 0) return statuses;
  const contexts = await findDeliveryContexts(app.db, claimed);
  const optOuts = await findSuppressions(app.db, claimed);
  const attempts = await Promise.allSettled(
    claimed.map((message) => attempt(app, message, contexts.get(message.id), optOuts.get(message.id))),
  );
  const sent: SentDelivery[] = [];
  for (const [index, result] of attempts.entries()) {
    if (result.status === 'rejected') continue;
    if (typeof result.value === 'string') statuses.set(claimed[index].id, result.value);
    else sent.push(result.value);
  }
  // One failure (a lost connection to the database) must not leave the others' sends unrecorded.
  await recordSent(app, sent);
  for (const delivery of sent) statuses.set(delivery.message.id, 'sent');
  const failed = attempts.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return statuses;
}

/** Sends one claimed message; a send the provider accepted is returned for recordSent, any other outcome is recorded here. */
async function attempt(
  app: Services,
  claimed: MessageRow,
  context: DeliveryContext | undefined,
  optOut: string | null | undefined,
): Promise<MessageStatus | SentDelivery> {
  const suppressed = suppressionOf(claimed, context, optOut);
  if (suppressed || !context) {
    const recipient = context ? intendedRecipient(claimed, context) : undefined;
    return recordOutcome(app, claimed, { status: 'suppressed', error: suppressed, recipient });
  }
  const release = await takeSendSlot(
    `${claimed.workspace_id} ${claimed.channel}`,
    app.config.MESSAGE_SENDS_IN_FLIGHT,
  );
  let outgoing: OutgoingMessage;
  let rendered: RenderedContent;
  let outcome: SendOutcome;
  try {
    try {
      ({ outgoing, rendered } = buildOutgoing(app, claimed, context));
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      return recordFailure(app, claimed, templateErrorText(error));
    }
    outcome = await sendMessage(app, claimed.workspace_id, outgoing).catch((error: unknown) => ({
      status: 'retry' as const,
      error: `channel error: ${(error as Error).message}`,
    }));
  } finally {
    release();
  }
  const recipient = outcome.recipient ?? intendedRecipient(claimed, context);
  if (outcome.status === 'sent') return { message: claimed, recipient, rendered, outcome };
  if (outcome.status === 'unconfigured')
    reportMissingKey(app.log, outcome.error, { messageId: claimed.id, channel: claimed.channel });
  return recordOutcome(app, claimed, { rendered, recipient, ...fromSendOutcome(outcome) });
}

/** Whom a suppressed message was for, when the contact has an address on its channel. */
function intendedRecipient(message: MessageRow, context: DeliveryContext): string | undefined {
  return channelNamed(message.channel).addressOf(context);
}

/** Why the message must not be sent: no contact, no address on its channel, or its opt-outs (findSuppressions). */
function suppressionOf(
  message: MessageRow,
  context: DeliveryContext | undefined,
  optOut: string | null | undefined,
): string | null {
  if (!context) return 'the contact no longer exists';
  return channelNamed(message.channel).unreachable(context) ?? optOut ?? null;
}

function fromSendOutcome(outcome: SendFailure) {
  const error = outcome.stage ? `${outcome.stage}: ${outcome.error}` : outcome.error;
  return { status: outcome.status, error, retryAfterMs: outcome.retryAfterMs };
}

function templateErrorText(error: TemplateError): string {
  return `template error in ${error.field ?? 'template'} at line ${error.line}, column ${error.column}: ${error.message}`;
}
