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
  type OutgoingMessage,
  type PushMessage,
  type SendFailure,
  type SendOutcome,
  sendMessage,
} from '../channels/index.ts';
import type { AppContext } from '../core/context.ts';
import { reportMissingKey } from '../secrets/index.ts';
import {
  renderEmail,
  renderText,
  TemplateError,
  type TemplateField,
  type TemplateKind,
  type TemplateVariables,
  withPreheader,
} from '../templates/index.ts';
import { type DeliveryContext, findDeliveryContexts } from './contextQueries.ts';
import { recordFailure, recordOutcome, recordSent, type SentDelivery } from './outcomes.ts';
import {
  claimMessages,
  findMessagesByIds,
  type MessageRow,
  type MessageStatus,
  type RenderedContent,
} from './queries.ts';
import { reserveSlots } from './sendRate.ts';
import { takeSendSlot } from './sendSlots.ts';
import { findSuppressions } from './subscriptionQueries.ts';
import { signUnsubscribeToken, unsubscribeUrl, unsubscribeUrlOf } from './tokens.ts';
import { isWebUrl, publicBase, signMessageToken } from './trackingTokens.ts';
import { addTracking } from './trackLinks.ts';

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
  const recipient = recipientOf(outgoing);
  if (outcome.status === 'sent') return { message: claimed, recipient, rendered, outcome };
  if (outcome.status === 'unconfigured')
    reportMissingKey(app.log, outcome.error, { messageId: claimed.id, channel: claimed.channel });
  return recordOutcome(app, claimed, { rendered, recipient, ...fromSendOutcome(outcome) });
}

/** Whom a suppressed message was for, when the contact has an address on its channel. */
function intendedRecipient(message: MessageRow, context: DeliveryContext): string | undefined {
  if (message.channel === 'email') return context.email ?? undefined;
  if (message.channel === 'telegram' && context.telegram_chat_id !== null)
    return String(context.telegram_chat_id);
  return undefined;
}

/** Why the message must not be sent: no contact, no address on its channel, or its opt-outs (findSuppressions). */
function suppressionOf(
  message: MessageRow,
  context: DeliveryContext | undefined,
  optOut: string | null | undefined,
): string | null {
  if (!context) return 'the contact no longer exists';
  if (message.channel === 'email' && !context.email) return 'the contact has no email address';
  if (message.channel === 'push' && !context.has_push_subscription)
    return 'the contact has no push subscription';
  if (message.channel === 'telegram' && context.telegram_chat_id === null)
    return 'the contact has no linked Telegram chat';
  return optOut ?? null;
}

function fromSendOutcome(outcome: SendFailure) {
  const error = outcome.stage ? `${outcome.stage}: ${outcome.error}` : outcome.error;
  return { status: outcome.status, error, retryAfterMs: outcome.retryAfterMs };
}

function templateErrorText(error: TemplateError): string {
  return `template error in ${error.field ?? 'template'} at line ${error.line}, column ${error.column}: ${error.message}`;
}

export function templateVariables(
  app: Services,
  message: MessageRow,
  context: DeliveryContext,
  unsubscribe = unsubscribeUrl(app.config, message.id),
): TemplateVariables {
  // The caller's data first: the built-in names (contact, workspace, unsubscribe_url …) win.
  return {
    ...message.data,
    contact: {
      email: context.email,
      firstName: context.first_name,
      lastName: context.last_name,
      phone: context.phone,
      attributes: context.attributes,
      leadScore: context.lead_score,
    },
    ...(context.event_type
      ? { event: { type: context.event_type, metadata: context.event_metadata ?? {} } }
      : {}),
    ...(message.campaign_id && context.campaign_name
      ? { campaign: { id: message.campaign_id, name: context.campaign_name } }
      : {}),
    workspace: { name: context.workspace_name },
    message: { id: message.id },
    unsubscribe_url: unsubscribe,
  };
}

/**
 * Campaign templates are parsed once per campaign step (the templates kit keys them by their
 * source too, so a changed step is parsed anew); one-off ones are not kept.
 */
function cacheKeyOf(message: MessageRow): string | undefined {
  if (!message.campaign_id) return undefined;
  return `${message.campaign_id}:${message.step_key ?? ''}`;
}

type Built = { outgoing: OutgoingMessage; rendered: RenderedContent };

/** What goes to the channel, and what the row keeps of it (renderedOf). */
function buildOutgoing(app: Services, message: MessageRow, context: DeliveryContext): Built {
  if (message.channel === 'telegram') {
    const outgoing = buildTelegram(app, message, context);
    return { outgoing, rendered: renderedOf(outgoing) };
  }
  if (message.channel === 'push') {
    const outgoing = buildPush(app, message, context);
    return { outgoing, rendered: renderedOf(outgoing) };
  }
  return buildEmail(app, message, context);
}

/** A push's or Telegram message's rendered fields (not its signed acknowledgement, nor the chat). */
function renderedOf(outgoing: PushMessage | ReturnType<typeof buildTelegram>): RenderedContent {
  if (outgoing.channel === 'telegram') {
    const { text, parseMode } = outgoing;
    return { channel: 'telegram', text, ...(parseMode ? { parseMode } : {}) };
  }
  const { title, body, url, icon } = outgoing.notification;
  return { channel: 'push', title, body, ...(url ? { url } : {}), ...(icon ? { icon } : {}) };
}

/** What the row records as the recipient: the address or the chat (push goes to the contact's browsers). */
function recipientOf(outgoing: OutgoingMessage): string | undefined {
  if (outgoing.channel === 'email') return outgoing.to;
  if (outgoing.channel === 'telegram') return String(outgoing.chatId);
  return undefined;
}

/**
 * A Telegram step's text; with parse mode HTML the contact's values are escaped like an email's HTML.
 * `cached: false` (previews) parses the source without keeping it.
 */
export function buildTelegram(app: Services, message: MessageRow, context: DeliveryContext, cached = true) {
  const { template } = message;
  const parseMode = template.parseMode ?? undefined;
  const text = renderPart(
    'text',
    template.text ?? template.html ?? '',
    templateVariables(app, message, context),
    cached ? cacheKeyOf(message) : undefined,
    parseMode === 'HTML' ? 'html' : 'text',
  );
  return { channel: 'telegram' as const, id: message.id, chatId: context.telegram_chat_id!, text, parseMode };
}

/**
 * Message-ID, X-Switchboard-Message-ID and the List-Unsubscribe headers are the channel's to write.
 * Tracking goes into the HTML after rendering (the text part, made from the HTML as written, keeps
 * the plain links and never shows the honeypot); the preheader after tracking, so that it is the
 * body's first element, before the honeypot.
 */
function buildEmail(app: Services, message: MessageRow, context: DeliveryContext): Built {
  const token = signUnsubscribeToken(app.config, message.id);
  const url = unsubscribeUrlOf(app.config, token);
  const { subject, html, text, preheader } = renderEmail(
    message.template,
    templateVariables(app, message, context, url),
    cacheKeyOf(message),
  );
  // Mail that asks for consent, or reaches someone who has not given it yet, is never tracked.
  const consented = !message.untracked && !context.awaiting_consent;
  const switches = { opens: consented && context.track_opens, clicks: consented && context.track_clicks };
  const sent = {
    subject,
    html: withPreheader(addTracking(app.config, html, message.id, switches), preheader),
    text,
  };
  return {
    outgoing: { channel: 'email', id: message.id, to: context.email!, ...sent, unsubscribe: { url, token } },
    rendered: { channel: 'email', ...sent, ...(preheader ? { preheader } : {}) },
  };
}

function renderPart(
  field: TemplateField,
  source: string,
  variables: TemplateVariables,
  cacheKey?: string,
  kind: TemplateKind = 'text',
) {
  try {
    return renderText(source, variables, cacheKey === undefined ? undefined : `${cacheKey}:${field}`, kind);
  } catch (error) {
    if (error instanceof TemplateError) error.field = field;
    throw error;
  }
}

/** A rendered click or icon URL that is not http(s) (`javascript:`…) fails the message. */
function renderUrl(field: TemplateField, source: string, variables: TemplateVariables, cacheKey?: string) {
  const url = renderPart(field, source, variables, cacheKey).trim();
  if (isWebUrl(url)) return url;
  const error = new TemplateError(
    `renders to ${JSON.stringify(url.slice(0, 100))}, not an http(s) URL`,
    1,
    1,
  );
  error.field = field;
  throw error;
}

/**
 * The step's title, body and URLs rendered as plain text; the push channel encrypts and sends.
 * `cached: false` (previews) parses the sources without keeping them.
 */
export function buildPush(
  app: Services,
  message: MessageRow,
  context: DeliveryContext,
  cached = true,
): PushMessage {
  const variables = templateVariables(app, message, context);
  const key = cached ? cacheKeyOf(message) : undefined;
  const { subject, text, html, push = {} } = message.template;
  return {
    channel: 'push',
    id: message.id,
    contactId: message.contact_id,
    notification: {
      title: renderPart('title', subject, variables, key),
      body: renderPart('body', text ?? html ?? '', variables, key),
      ...(push.url ? { url: renderUrl('url', push.url, variables, key) } : {}),
      ...(push.icon ? { icon: renderUrl('icon', push.icon, variables, key) } : {}),
      ackUrl: `${publicBase(app.config)}/api/public/push/ack`,
      ackToken: signMessageToken(app.config, 'push', message.id),
    },
    ttlSeconds: push.ttlSeconds ?? Math.floor(app.config.PUSH_TTL_MS / 1000),
    urgency: push.urgency ?? 'normal',
    ...(push.topic ? { topic: push.topic } : {}),
  };
}
