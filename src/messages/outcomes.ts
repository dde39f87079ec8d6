// Records what became of a claimed send: the row, its timeline entry and its webhook commit
// together, so a webhook never announces an outcome that was rolled back. A deferred send goes
// back to queued with its retry job enqueued in the same transaction.
import type { AppContext } from '../core/context.ts';
import { transactionalDb } from '../jobs/boss.ts';
import { emit, emitMany } from '../outbox/emit.ts';
import { finishClaim, finishSentClaims } from './claimQueries.ts';
import type { MessageRow, MessageStatus, RenderedContent } from './rows.ts';
import { setSubscription } from './subscriptionQueries.ts';
import { insertMessageEvent, insertMessageEvents } from './timelineQueries.ts';
import { unsubscribeContact } from './unsubscribe.ts';

export const SEND_QUEUE = 'messages.send';
/** The most messages one `messages.send` job carries (a page of campaign messages is split into such jobs). */
export const SEND_JOB_MESSAGES = 25;

type Services = Pick<AppContext, 'db' | 'boss' | 'config' | 'log'>;

export type ClaimOutcome = {
  status: 'sent' | 'suppressed' | 'retry' | 'permanent' | 'bounce' | 'unsubscribe' | 'unconfigured';
  error?: string | null;
  providerId?: string | null;
  providerResponse?: string | null;
  /** The address or chat it went (or would have gone) to. */
  recipient?: string;
  /** What was rendered and handed to the channel. */
  rendered?: RenderedContent;
  /** A retry the provider asked to wait this long for (a 429's retry_after), instead of the schedule's. */
  retryAfterMs?: number;
};

export async function recordFailure(app: Services, message: MessageRow, error: string) {
  return recordOutcome(app, message, { status: 'permanent', error });
}

/**
 * The milliseconds to wait before the next attempt, or null after the last one. A provider's own
 * wait (rate limited) replaces the schedule's for that attempt; the number of attempts is the same.
 * A send this process could not make for want of a key waits the schedule's first step, as often as
 * it takes: the attempt is given back, so the message never fails for the process's configuration.
 */
function retryDelay(app: Services, attempts: number, outcome: ClaimOutcome): number | null {
  const schedule = app.config.MESSAGE_RETRY_SCHEDULE;
  if (outcome.status === 'unconfigured') return schedule[0] * 1000;
  if (outcome.status !== 'retry' || attempts > schedule.length) return null;
  return outcome.retryAfterMs ?? schedule[attempts - 1] * 1000;
}

export async function recordOutcome(
  app: Services,
  message: MessageRow,
  outcome: ClaimOutcome,
): Promise<MessageStatus> {
  const delay = retryDelay(app, message.attempts, outcome);
  const status = finalStatus(outcome.status, delay);
  const recorded = await app.db.transaction(async (tx) => {
    const nextAttemptAt = delay === null ? null : new Date(Date.now() + delay);
    const finished = await finishClaim(tx, message.id, {
      status,
      recipient: outcome.recipient,
      providerId: outcome.providerId,
      providerResponse: outcome.providerResponse,
      error: outcome.error,
      nextAttemptAt,
      rendered: outcome.rendered,
      attemptGivenBack: outcome.status === 'unconfigured',
    });
    if (!finished) return false;
    const timelineType = status === 'queued' ? 'retrying' : status;
    await insertMessageEvent(tx, message, timelineType, timelineDetail(outcome, message, nextAttemptAt));
    await announce(tx, message, status, outcome);
    if (nextAttemptAt) {
      await app.boss.send(
        SEND_QUEUE,
        { messageId: message.id },
        { db: transactionalDb(tx), startAfter: nextAttemptAt },
      );
    }
    return true;
  });
  if (!recorded)
    app.log.warn({ messageId: message.id, status }, 'send outcome after the claim was swept; not recorded');
  return status;
}

export type SentDelivery = {
  message: MessageRow;
  /** The address or chat; undefined for push (it goes to each of the contact's browsers). */
  recipient: string | undefined;
  rendered: RenderedContent;
  outcome: { providerId: string; response: string };
};

/**
 * recordOutcome for sends the provider accepted, all in one transaction of three statements; what
 * each rendered is written by the first, with the status.
 */
export async function recordSent(app: Services, sent: readonly SentDelivery[]): Promise<void> {
  if (sent.length === 0) return;
  const recorded = await app.db.transaction(async (tx) => {
    const finished = await finishSentClaims(
      tx,
      sent.map(({ message, recipient, rendered, outcome }) => ({
        id: message.id,
        recipient: recipient ?? null,
        providerId: outcome.providerId,
        providerResponse: outcome.response,
        rendered,
      })),
    );
    const mine = sent.filter(({ message }) => finished.has(message.id));
    await insertMessageEvents(
      tx,
      mine.map(({ message, outcome }) => ({
        workspace_id: message.workspace_id,
        message_id: message.id,
        type: 'sent',
        detail: timelineDetail({ status: 'sent', providerResponse: outcome.response }, message, null),
      })),
    );
    await emitMany(
      tx,
      mine.map(({ message }) => ({
        workspaceId: message.workspace_id,
        type: 'message.sent' as const,
        data: sentData(message),
      })),
    );
    return finished;
  });
  for (const { message } of sent) {
    if (!recorded.has(message.id))
      app.log.warn(
        { messageId: message.id, status: 'sent' },
        'send outcome after the claim was swept; not recorded',
      );
  }
}

const sentData = (message: MessageRow) => ({
  messageId: message.id,
  contactId: message.contact_id,
  channel: message.channel,
  status: 'sent',
  campaignId: message.campaign_id,
});

function finalStatus(status: ClaimOutcome['status'], retryDelayMs: number | null): MessageStatus {
  if (status === 'sent' || status === 'suppressed') return status;
  if (status === 'bounce') return 'bounced';
  if ((status === 'retry' || status === 'unconfigured') && retryDelayMs !== null) return 'queued';
  return 'failed';
}

function timelineDetail(outcome: ClaimOutcome, message: MessageRow, nextAttemptAt: Date | null) {
  return {
    attempt: message.attempts,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.providerResponse ? { response: outcome.providerResponse } : {}),
    ...(nextAttemptAt ? { nextAttemptAt: nextAttemptAt.toISOString() } : {}),
  };
}

type Tx = Parameters<Parameters<Services['db']['transaction']>[0]>[0];

async function announce(tx: Tx, message: MessageRow, status: MessageStatus, outcome: ClaimOutcome) {
  const ids = { messageId: message.id, contactId: message.contact_id };
  const workspaceId = message.workspace_id;
  if (status === 'sent') {
    await emit(tx, { workspaceId, type: 'message.sent', data: sentData(message) });
  } else if (status === 'bounced') {
    await emit(tx, { workspaceId, type: 'message.bounced', data: { ...ids, bounceType: 'hard' } });
    // A hard bounce suppresses the channel for good (until the workspace resubscribes the contact).
    await setSubscription(tx, workspaceId, message.contact_id, {
      channel: 'email',
      status: 'unsubscribed',
      reason: 'hard_bounce',
      messageId: message.id,
    });
  } else if (status === 'failed') {
    await emit(tx, {
      workspaceId,
      type: 'message.failed',
      data: { ...ids, error: outcome.error ?? 'failed' },
    });
    // The provider says the person left the channel (a Telegram user blocked the bot).
    if (outcome.status === 'unsubscribe') {
      await unsubscribeContact(tx, workspaceId, message.contact_id, message.channel, 'provider', message.id);
    }
  }
}
