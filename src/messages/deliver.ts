// The one place that sends. Order of the side effects, and why:
//   1. claim the row (queued → sending, with a lease) in its own statement, committed BEFORE the
//      provider is called: a retried job, a second worker or a crash after the send finds the row
//      claimed or final and sends nothing. At most one send per message, whatever fails.
//   2. suppression (opt-outs, hard bounces, complaints, no address): recorded, never sent.
//   3. render with the templates kit; a template error fails the message with that error.
//   4. call the channel, outside any transaction (a provider can take seconds).
//   5. record the outcome, its timeline entry and its webhook in one transaction (outcomes.ts).
// Before 1, an attempt whose channel has a rate reserves its send slot and waits for it (sendRate.ts).
// A worker killed between 1 and 5 leaves the row claimed; the lease sweep marks it failed with
// error 'interrupted' (sweep.ts). It is not resent: the provider may have accepted it.
import { createHash } from 'node:crypto';
import {
  hasPushSubscription,
  type OutgoingMessage,
  type PushMessage,
  type SendOutcome,
  sendMessage,
} from '../channels/index.ts';
import type { AppContext } from '../http/context.ts';
import {
  renderEmail,
  renderText,
  TemplateError,
  type TemplateField,
  type TemplateVariables,
} from '../templates/index.ts';
import { type DeliveryContext, findDeliveryContext } from './contextQueries.ts';
import { recordFailure, recordOutcome } from './outcomes.ts';
import { claimMessage, findMessageById, type MessageRow, type MessageStatus } from './queries.ts';
import { needsSendSlot, reserveSlotFor } from './sendRate.ts';
import { findSuppression } from './subscriptionQueries.ts';
import { signUnsubscribeToken, unsubscribeUrl } from './tokens.ts';
import { isWebUrl, publicBase, signMessageToken } from './trackingTokens.ts';
import { addTracking } from './trackLinks.ts';

type Services = AppContext;

/** Sends the message if it is due; `paced`: its send slot is already settled (sendRate.ts). */
export async function deliverMessage(
  app: Services,
  messageId: string,
  paced = false,
): Promise<MessageStatus> {
  const claimed = await claimMessage(app.db, messageId, app.config.MESSAGE_SEND_LEASE_SECONDS * 1000);
  if (!claimed) {
    const current = await findMessageById(app.db, messageId);
    // Its channel has a rate: a slot first, then the claim (now, or by the paced job at the slot).
    if (current && !paced && needsSendSlot(current)) {
      if ((await reserveSlotFor(app, messageId)) === 'now') return deliverMessage(app, messageId, true);
      return 'queued';
    }
    // Erased with its contact since it was queued: nothing to send, nothing to record.
    return current?.status ?? 'failed';
  }
  const context = await findDeliveryContext(app.db, claimed);
  const suppressed = context ? await suppressionOf(app, claimed, context) : 'the contact no longer exists';
  if (suppressed || !context) {
    return recordOutcome(app, claimed, { status: 'suppressed', error: suppressed });
  }
  let outgoing: OutgoingMessage;
  try {
    outgoing = buildOutgoing(app, claimed, context);
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    return recordFailure(app, claimed, templateErrorText(error));
  }
  const outcome = await sendMessage(app, claimed.workspace_id, outgoing).catch((error: unknown) => ({
    status: 'retry' as const,
    error: `channel error: ${(error as Error).message}`,
  }));
  return recordOutcome(app, claimed, {
    rendered: true,
    recipient: recipientOf(outgoing),
    ...fromSendOutcome(outcome),
  });
}

async function suppressionOf(app: Services, message: MessageRow, context: DeliveryContext) {
  if (message.channel === 'email' && !context.email) return 'the contact has no email address';
  if (
    message.channel === 'push' &&
    !(await hasPushSubscription(app.db, message.workspace_id, message.contact_id))
  )
    return 'the contact has no push subscription';
  if (message.channel === 'telegram' && context.telegram_chat_id === null)
    return 'the contact has no linked Telegram chat';
  return findSuppression(
    app.db,
    message.workspace_id,
    message.contact_id,
    message.channel,
    message.ignore_unsubscribe,
  );
}

function fromSendOutcome(outcome: SendOutcome) {
  if (outcome.status === 'sent') {
    return { status: 'sent' as const, providerId: outcome.providerId, providerResponse: outcome.response };
  }
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
    unsubscribe_url: unsubscribeUrl(app.config, message.id),
  };
}

/** Campaign templates are parsed once per version of their source; one-off ones are not kept. */
function cacheKeyOf(message: MessageRow): string | undefined {
  if (!message.campaign_id) return undefined;
  const source = createHash('sha256').update(JSON.stringify(message.template)).digest('base64url');
  return `${message.campaign_id}:${message.step_key ?? ''}:${source}`;
}

function buildOutgoing(app: Services, message: MessageRow, context: DeliveryContext): OutgoingMessage {
  if (message.channel === 'telegram') return buildTelegram(app, message, context);
  if (message.channel === 'push') return buildPush(app, message, context);
  return buildEmail(app, message, context);
}

/** What the row records as the recipient: the address or the chat (push goes to the contact's browsers). */
function recipientOf(outgoing: OutgoingMessage): string | undefined {
  if (outgoing.channel === 'email') return outgoing.to;
  if (outgoing.channel === 'telegram') return String(outgoing.chatId);
  return undefined;
}

/** A Telegram step's text; with parse mode HTML the contact's values are escaped like an email's HTML. */
function buildTelegram(app: Services, message: MessageRow, context: DeliveryContext): OutgoingMessage {
  const { template } = message;
  const parseMode = template.parseMode ?? undefined;
  const text = renderText(
    template.text ?? template.html,
    templateVariables(app, message, context),
    cacheKeyOf(message),
    parseMode === 'HTML' ? 'html' : 'text',
  );
  return { channel: 'telegram', id: message.id, chatId: context.telegram_chat_id!, text, parseMode };
}

/**
 * Message-ID, X-Switchboard-Message-Id and the List-Unsubscribe headers are the channel's to write.
 * Tracking goes into the HTML after rendering (the text part, made from the HTML as written, keeps
 * the plain links and never shows the honeypot).
 */
function buildEmail(app: Services, message: MessageRow, context: DeliveryContext): OutgoingMessage {
  const rendered = renderEmail(
    message.template,
    templateVariables(app, message, context),
    cacheKeyOf(message),
  );
  const switches = { opens: context.track_opens, clicks: context.track_clicks };
  return {
    channel: 'email',
    id: message.id,
    to: context.email!,
    ...rendered,
    html: addTracking(app.config, rendered.html, message.id, switches),
    unsubscribe: {
      url: unsubscribeUrl(app.config, message.id),
      token: signUnsubscribeToken(app.config, message.id),
    },
  };
}

function renderPart(field: TemplateField, source: string, variables: TemplateVariables, cacheKey?: string) {
  try {
    return renderText(source, variables, cacheKey === undefined ? undefined : `${cacheKey}:${field}`);
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

/** The step's title, body and URLs rendered as plain text; the push channel encrypts and sends. */
function buildPush(app: Services, message: MessageRow, context: DeliveryContext): PushMessage {
  const variables = templateVariables(app, message, context);
  const key = cacheKeyOf(message);
  const { subject, text, html, push = {} } = message.template;
  return {
    channel: 'push',
    id: message.id,
    contactId: message.contact_id,
    notification: {
      title: renderPart('title', subject, variables, key),
      body: renderPart('body', text ?? html, variables, key),
      ...(push.url ? { url: renderUrl('url', push.url, variables, key) } : {}),
      ...(push.icon ? { icon: renderUrl('icon', push.icon, variables, key) } : {}),
      ackUrl: `${publicBase(app.config)}/api/public/push/ack`,
      ackToken: signMessageToken(app.config, 'push', message.id),
    },
    ttlSeconds: push.ttlSeconds ?? app.config.PUSH_TTL_SECONDS,
    urgency: push.urgency ?? 'normal',
    ...(push.topic ? { topic: push.topic } : {}),
  };
}
