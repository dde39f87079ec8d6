// Sending one push message to every browser the contact subscribed from, and classifying what
// each push service answered (RFC 8030): 201 delivered to the service; 404/410 the browser dropped
// the subscription (deleted here; a contact left with none is an `unsubscribe` outcome); 429 and
// 5xx later (Retry-After honoured by the retry's delay, so no worker sleeps); anything else will
// not improve by itself. The message succeeds when at least one browser's service took it.
import type https from 'node:https';
import type { WebPushError } from 'web-push';
import type { AppContext } from '../../core/context.ts';
import { MissingKeyError, SecretDecryptionError } from '../../secrets/index.ts';
import { findChannelConfig } from '../queries.ts';
import type { PushMessage, SendOutcome } from '../types.ts';
import { pushAgent } from './agent.ts';
import { pushEndpointRefusal } from './endpoint.ts';
import { openVapid, type Vapid } from './service.ts';
import {
  deletePushSubscriptions,
  listPushSubscriptions,
  type PushSubscriptionRow,
} from './subscriptionQueries.ts';

/** One aes128gcm record of 4096 bytes holds 3993 bytes of plaintext; web-push does not check. */
export const PUSH_PAYLOAD_MAX_BYTES = 3993;
/** A Retry-After beyond a day is treated as a day: the message's retry schedule still bounds attempts. */
const RETRY_AFTER_MAX_MS = 86_400_000;

type Result =
  | { kind: 'sent'; location: string }
  | { kind: 'gone' | 'permanent'; error: string }
  | { kind: 'retry'; error: string; retryAfterMs?: number };

/** The payload the service worker parses: the notification and our message id. */
export function pushPayload(message: PushMessage): string {
  return JSON.stringify({ messageId: message.id, ...message.notification });
}

export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), RETRY_AFTER_MAX_MS) : undefined;
}

function classify(error: unknown): Result {
  const answer = error as Partial<WebPushError>;
  const code = answer.statusCode;
  if (typeof code !== 'number') return { kind: 'retry', error: `network: ${(error as Error).message}` };
  const text = `${code} ${String(answer.body ?? '').slice(0, 200)}`.trim();
  if (code === 404 || code === 410) return { kind: 'gone', error: `subscription gone: ${text}` };
  if (code === 429 || code >= 500)
    return { kind: 'retry', error: text, retryAfterMs: retryAfterMs(answer.headers?.['retry-after']) };
  return { kind: 'permanent', error: text };
}

async function sendOne(
  app: AppContext,
  vapid: Vapid,
  subscription: PushSubscriptionRow,
  message: PushMessage,
  payload: string,
): Promise<Result> {
  const refusal = pushEndpointRefusal(app.config, subscription.endpoint);
  if (refusal) return { kind: 'permanent', error: `endpoint refused: ${refusal}` };
  // Loaded at the first send, not at import (the CLI and web processes reach this module too).
  const { default: webpush } = await import('web-push');
  try {
    const answer = await webpush.sendNotification(
      { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
      payload,
      {
        vapidDetails: vapid,
        TTL: message.ttlSeconds,
        urgency: message.urgency,
        ...(message.topic ? { topic: message.topic } : {}),
        contentEncoding: 'aes128gcm',
        agent: pushAgent(app.config) as https.Agent,
        timeout: app.config.PUSH_TIMEOUT_MS,
      },
    );
    return { kind: 'sent', location: String(answer.headers.location ?? answer.statusCode) };
  } catch (error) {
    return classify(error);
  }
}

/** One outcome for the message from each browser's result. */
async function combine(
  app: AppContext,
  workspaceId: string,
  message: PushMessage,
  subscriptions: readonly PushSubscriptionRow[],
  results: readonly Result[],
): Promise<SendOutcome> {
  const gone = subscriptions.filter((_, index) => results[index].kind === 'gone').map((s) => s.id);
  const left = gone.length
    ? await deletePushSubscriptions(app.db, workspaceId, message.contactId, gone)
    : subscriptions.length;
  const sent = results.filter((result) => result.kind === 'sent');
  if (sent.length > 0) {
    return {
      status: 'sent',
      providerId: sent[0].location,
      response: `accepted by ${sent.length} of ${results.length} push subscriptions`,
    };
  }
  const retries = results.filter((result) => result.kind === 'retry');
  if (retries.length > 0) {
    const waits = retries.map((result) => result.retryAfterMs).filter((ms) => ms !== undefined);
    const wait = waits.length ? Math.max(...waits) : undefined;
    return {
      status: 'retry',
      error: retries[0].error,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    };
  }
  const failures = results as Extract<Result, { error: string }>[];
  if (left === 0 && gone.length > 0) return { status: 'unsubscribe', error: failures[0].error };
  return { status: 'permanent', error: (failures.find((r) => r.kind === 'permanent') ?? failures[0]).error };
}

export async function sendPush(
  app: AppContext,
  workspaceId: string,
  message: PushMessage,
): Promise<SendOutcome> {
  const row = await findChannelConfig(app.db, workspaceId, 'push');
  if (!row) return { status: 'permanent', stage: 'config', error: 'channel not configured' };
  let vapid: Vapid;
  try {
    vapid = openVapid(row);
  } catch (error) {
    if (error instanceof MissingKeyError)
      return { status: 'unconfigured', stage: 'config', error: error.message };
    if (error instanceof SecretDecryptionError)
      return { status: 'permanent', stage: 'config', error: error.message };
    throw error;
  }
  const payload = pushPayload(message);
  const size = Buffer.byteLength(payload);
  if (size > PUSH_PAYLOAD_MAX_BYTES) {
    return {
      status: 'permanent',
      error: `payload too large: ${size} bytes; a push message holds at most ${PUSH_PAYLOAD_MAX_BYTES}`,
    };
  }
  const subscriptions = await listPushSubscriptions(app.db, workspaceId, message.contactId);
  if (subscriptions.length === 0)
    return { status: 'permanent', error: 'the contact has no push subscription' };
  const results = await Promise.all(subscriptions.map((s) => sendOne(app, vapid, s, message, payload)));
  const outcome = await combine(app, workspaceId, message, subscriptions, results);
  if (outcome.status !== 'sent')
    app.log.warn({ workspaceId, messageId: message.id, status: outcome.status }, 'push not sent');
  return outcome;
}
