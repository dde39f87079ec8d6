// Sending messages again from outside the worker (CLI replay and ping). The attempts are queued
// leased to this process, sent here and recorded like the dispatcher's; if this process dies,
// the leases run out and the worker sends them instead, so nothing queued is lost.
import type { DatabasePool } from 'slonik';
import type { Config } from '../config.ts';
import { ConflictError, NotFoundError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import { createDeliveryHttp } from '../net/ssrf.ts';
import { type Outcome, performAttempt, recordOutcomes } from './attempts.ts';
import { queueManualAttempts } from './deliveryQueries.ts';
import { leaseMs, userAgent } from './dispatcher.ts';
import { claimAttempts } from './dispatchQueries.ts';
import { findEndpoint } from './endpointQueries.ts';
import { messageBody } from './fanOut.ts';
import { findMessagesForReplay, insertMessage, type ReplayFilter, type ReplayRow } from './messageQueries.ts';

const CHUNK = 100;

export type Summary = { total: number; succeeded: number; failed: number };
export type Progress = (done: number, total: number) => void;

async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Sends each message once more as a manual attempt, here and now; reports progress per chunk. */
export async function sendNow(
  db: DatabasePool,
  config: Config,
  version: string,
  workspaceId: string,
  messageIds: readonly string[],
  onProgress: Progress = () => {},
): Promise<{ summary: Summary; outcomes: Outcome[] }> {
  const lease = leaseMs(config);
  const http = createDeliveryHttp({
    allowPrivate: config.ALLOW_PRIVATE_TARGETS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
  });
  const deps = { http, send: { timeoutMs: config.WEBHOOK_TIMEOUT_MS, userAgent: userAgent(version) } };
  const all: Outcome[] = [];
  try {
    for (let start = 0; start < messageIds.length; start += CHUNK) {
      const queued = await queueManualAttempts(
        db,
        workspaceId,
        messageIds.slice(start, start + CHUNK),
        lease,
      );
      const claimed = await claimAttempts(db, { workspaceId, ids: queued.map((row) => row.id) }, lease);
      const outcomes = await mapWithConcurrency(claimed, config.WEBHOOK_CONCURRENCY, (attempt) =>
        performAttempt(deps, attempt),
      );
      await recordOutcomes(db, config, outcomes);
      all.push(...outcomes);
      onProgress(Math.min(start + CHUNK, messageIds.length), messageIds.length);
    }
  } finally {
    await http.agent.close();
  }
  const succeeded = all.filter((outcome) => outcome.result.success).length;
  return { summary: { total: all.length, succeeded, failed: all.length - succeeded }, outcomes: all };
}

export type ReplayPlan = {
  messages: ReplayRow[];
  sendable: ReplayRow[];
  inactive: ReplayRow[];
  /** Failed-only: failed attempts whose message waits for its scheduled retry (not failed yet). */
  retrying: ReplayRow[];
};

/**
 * What a replay would send; messages of disabled endpoints are left out (and counted). With
 * failed-only, so are messages waiting for a scheduled retry: sending one now would race the
 * worker's retry and deliver it twice, so the report names them instead.
 */
export async function planReplay(db: DatabasePool, filter: ReplayFilter): Promise<ReplayPlan> {
  if (filter.endpointId && !(await findEndpoint(db, filter.workspaceId, filter.endpointId)))
    throw new NotFoundError(
      'Webhook endpoint',
      `No webhook endpoint ${filter.endpointId} in this workspace.`,
    );
  const messages = [...(await findMessagesForReplay(db, filter))];
  const waiting = (message: ReplayRow) => Boolean(filter.failedOnly) && message.status === 'pending';
  return {
    messages,
    sendable: messages.filter((message) => message.active && !waiting(message)),
    inactive: messages.filter((message) => !message.active),
    retrying: messages.filter((message) => message.active && waiting(message)),
  };
}

/** A signed `ping` to an OUTBOUND endpoint, recorded like any delivery. */
export async function ping(
  db: DatabasePool,
  config: Config,
  version: string,
  workspaceId: string,
  endpointId: string,
) {
  const endpoint = await findEndpoint(db, workspaceId, endpointId);
  if (endpoint?.direction !== 'OUTBOUND')
    throw new NotFoundError(
      'Webhook endpoint',
      `No OUTBOUND webhook endpoint ${endpointId} in this workspace.`,
    );
  if (!endpoint.active) throw new ConflictError('The endpoint is disabled: activate it first.');
  const id = newId('webhookMessage');
  const data = { endpointId, message: 'Test delivery from Switchboard.' };
  await insertMessage(db, {
    id,
    workspaceId,
    endpointId,
    event: 'ping',
    body: messageBody('ping', new Date().toISOString(), data),
  });
  const { outcomes } = await sendNow(db, config, version, workspaceId, [id]);
  return outcomes[0];
}
