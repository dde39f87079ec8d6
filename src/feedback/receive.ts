// The public receivers of provider feedback: POST /api/feedback/{endpointId}/{provider}. In order:
//   1. the endpoint must exist for that provider (else 404, nothing stored);
//   2. the sender proves it is the provider (SNS signature for the pinned topic, SendGrid's ECDSA
//      signature, Postmark's credentials); a request that does not is refused with 401 and stored
//      nowhere: anyone can post to a public URL, and only the provider's word is worth keeping;
//   3. every authenticated request is a receipt in the endpoint's log, a malformed one included;
//   4. each provider event is claimed by its provider id in the same transaction as its effects,
//      so a replay (the provider retrying, or anyone resending a captured request) changes nothing;
//   5. an event about a message we cannot find is recorded and answered 200 with a log line: the
//      provider would otherwise retry it for days.
import {
  type FeedbackEndpointRow,
  type FeedbackProvider,
  findFeedbackEndpointById,
} from '../channels/index.ts';
import type { AppContext } from '../core/context.ts';
import { AppError, BadRequestError, NotFoundError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/pool.ts';
import { MALFORMED_JSON } from '../http/malformedJson.ts';
import { findFeedbackMessage, recordBounce, recordComplaint, recordDelivered } from '../messages/index.ts';
import type { FeedbackEvent } from './events.ts';
import { postmarkEvents, verifyPostmark } from './postmark.ts';
import { claimFeedbackEvent, type EventSummary, insertFeedbackReceipt } from './queries.ts';
import { sendgridEvents, verifySendgrid } from './sendgrid.ts';
import { sesEvents } from './ses.ts';
import { confirmSubscription, SnsFetchError, verifySnsEnvelope } from './sns.ts';

export type FeedbackRequest = {
  endpointId: string;
  provider: FeedbackProvider;
  rawBody: Buffer | null;
  body: unknown;
  header: (name: string) => string | undefined;
};

export type FeedbackReceived = { received: true; receiptId: string; events: EventSummary[] };

type Receipt = { app: AppContext; endpoint: FeedbackEndpointRow; id: string };

const badGateway = (detail: string) =>
  new AppError(502, 'provider-unreachable', 'Provider unreachable', detail);

async function applyEvent(receipt: Receipt, tx: Db, event: FeedbackEvent): Promise<EventSummary> {
  const summary = (outcome: EventSummary['outcome'], messageId: string | null): EventSummary => ({
    eventId: event.eventId,
    type: event.type,
    outcome,
    messageId,
  });
  const { endpoint, app } = receipt;
  if (!event.kind || !event.eventId) return summary('ignored', null);
  const message = await findFeedbackMessage(tx, endpoint.workspace_id, event);
  const claimed = await claimFeedbackEvent(tx, {
    workspaceId: endpoint.workspace_id,
    provider: endpoint.provider,
    eventId: event.eventId,
    receiptId: receipt.id,
    kind: event.kind,
    messageId: message?.id ?? null,
    email: event.email,
    detail: {
      type: event.type,
      reason: event.reason,
      echoedId: event.messageId,
      providerId: event.providerId,
    },
  });
  if (!claimed) return summary('duplicate', message?.id ?? null);
  if (!message) {
    app.log.warn(
      {
        workspaceId: endpoint.workspace_id,
        provider: endpoint.provider,
        eventId: event.eventId,
        kind: event.kind,
      },
      'provider feedback about a message we do not know; recorded, not applied',
    );
    return summary('unknown_message', null);
  }
  const detail = { provider: endpoint.provider, reason: event.reason };
  if (event.kind === 'delivery') await recordDelivered(tx, message, detail);
  else if (event.kind === 'complaint') await recordComplaint(tx, message, detail);
  else {
    const bounceType = event.kind === 'hard_bounce' ? 'hard' : 'soft';
    await recordBounce(tx, message, {
      ...detail,
      bounceType,
      softBounceLimit: app.config.FEEDBACK_SOFT_BOUNCE_LIMIT,
    });
  }
  return summary('applied', message.id);
}

/** The events and their receipt commit together. */
async function applyEvents(receipt: Receipt, events: FeedbackEvent[]): Promise<FeedbackReceived> {
  return receipt.app.db.transaction(async (tx) => {
    const summaries: EventSummary[] = [];
    for (const event of events) summaries.push(await applyEvent(receipt, tx, event));
    await record(tx, receipt, { status: 200, outcome: 'processed', events: summaries });
    return { received: true, receiptId: receipt.id, events: summaries };
  });
}

async function record(
  db: Db,
  receipt: Receipt,
  entry: { status: number; outcome: string; events?: EventSummary[]; error?: string },
) {
  await insertFeedbackReceipt(db, {
    id: receipt.id,
    workspaceId: receipt.endpoint.workspace_id,
    endpointId: receipt.endpoint.id,
    provider: receipt.endpoint.provider,
    responseStatus: entry.status,
    outcome: entry.outcome,
    events: entry.events ?? [],
    error: entry.error?.slice(0, 2000) ?? null,
  });
}

/** An authenticated request whose body we cannot read: kept in the log, answered 400. */
async function refuseBody(receipt: Receipt, detail: string): Promise<never> {
  await record(receipt.app.db, receipt, { status: 400, outcome: 'rejected', error: detail });
  throw new BadRequestError(detail, 'malformed-feedback');
}

async function receiveSes(receipt: Receipt, request: FeedbackRequest): Promise<FeedbackReceived> {
  const { app, endpoint } = receipt;
  if (request.body === MALFORMED_JSON)
    throw new BadRequestError('The body is not a JSON SNS message.', 'malformed-json');
  const envelope = await verifySnsEnvelope(
    app.config,
    request.body,
    String(endpoint.settings.topicArn),
  ).catch((error: unknown) => {
    throw error instanceof SnsFetchError ? badGateway(`SNS signing certificate: ${error.message}`) : error;
  });
  if (envelope.Type === 'Notification')
    return applyEvents(receipt, sesEvents(envelope.MessageId, envelope.Message));
  if (envelope.Type === 'SubscriptionConfirmation') {
    try {
      await confirmSubscription(app.config, envelope);
    } catch (error) {
      const detail = `Could not confirm the subscription: ${(error as Error).message}`;
      await record(app.db, receipt, { status: 502, outcome: 'confirmation_failed', error: detail });
      throw badGateway(detail);
    }
    app.log.info(
      { workspaceId: endpoint.workspace_id, topicArn: envelope.TopicArn },
      'SNS subscription confirmed',
    );
  }
  const outcome =
    envelope.Type === 'SubscriptionConfirmation' ? 'subscription_confirmed' : 'unsubscribe_confirmation';
  await record(app.db, receipt, { status: 200, outcome });
  return { received: true, receiptId: receipt.id, events: [] };
}

async function receiveSendgrid(receipt: Receipt, request: FeedbackRequest): Promise<FeedbackReceived> {
  verifySendgrid(String(receipt.endpoint.settings.publicKey), request.rawBody, request.header);
  if (!Array.isArray(request.body))
    return refuseBody(receipt, 'The body must be a JSON array of SendGrid events.');
  return applyEvents(receipt, sendgridEvents(request.body));
}

async function receivePostmark(receipt: Receipt, request: FeedbackRequest): Promise<FeedbackReceived> {
  verifyPostmark(receipt.endpoint, request.header);
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !('RecordType' in body))
    return refuseBody(receipt, 'The body must be a Postmark webhook object with a RecordType.');
  return applyEvents(receipt, postmarkEvents(body));
}

const receivers = { ses: receiveSes, sendgrid: receiveSendgrid, postmark: receivePostmark };

export async function receiveFeedback(app: AppContext, request: FeedbackRequest): Promise<FeedbackReceived> {
  const endpoint = await findFeedbackEndpointById(app.db, request.endpointId);
  if (endpoint?.provider !== request.provider)
    throw new NotFoundError(
      'Feedback endpoint',
      `No ${request.provider} feedback endpoint ${request.endpointId}.`,
    );
  return receivers[request.provider]({ app, endpoint, id: newId('feedbackReceipt') }, request);
}
