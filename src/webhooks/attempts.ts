// Making a claimed attempt and recording what it did. Used by the dispatcher (streaming) and by
// the CLI's replay and ping (in batches), so every attempt, however started, is recorded alike.

import type { DatabasePool } from 'slonik';
import { recordAudit } from '../audit/index.ts';
import type { Config } from '../config.ts';
import { newId } from '../db/ids.ts';
import type { Tx } from '../db/pool.ts';
import type { DeliveryHttp } from '../net/ssrf.ts';
import { skipQueuedAttempts } from './deliveryQueries.ts';
import type { ClaimedAttempt } from './dispatchQueries.ts';
import {
  annotateDeliveries,
  disableFailingEndpoints,
  type OutboundDeliveryRow,
  type RetryRow,
  recordDeliveries,
  refreshFailedMessages,
  relaxCommit,
  scheduleRetries,
  startFailureStreaks,
} from './outcomeQueries.ts';
import { type AttemptResult, type SendOptions, sendAttempt } from './sender.ts';

export type Outcome = { attempt: ClaimedAttempt; result: AttemptResult; startedAt: string };

export type AttemptDeps = { http: DeliveryHttp; send: SendOptions };

const SKIPPED: Omit<AttemptResult, 'durationMs'> = {
  success: false,
  responseStatus: null,
  responseBody: null,
  error: 'skipped: endpoint disabled',
  retryAfterSeconds: null,
  gone: false,
};

export async function performAttempt(deps: AttemptDeps, attempt: ClaimedAttempt): Promise<Outcome> {
  const startedAt = new Date().toISOString();
  if (attempt.secretError !== null) {
    // Retried: restoring the key to ENCRYPTION_KEY lets a later attempt sign.
    const error = attempt.secretError;
    return {
      attempt,
      startedAt,
      result: { ...SKIPPED, error, durationMs: 0, keyMissing: attempt.keyMissing },
    };
  }
  if (!attempt.active || attempt.url === null || attempt.secrets.length === 0) {
    return { attempt, startedAt, result: { ...SKIPPED, durationMs: 0 } };
  }
  const result = await sendAttempt(
    deps.http,
    {
      attemptId: attempt.id,
      messageId: attempt.message_id,
      event: attempt.event,
      body: attempt.body,
      url: attempt.url,
      secrets: attempt.secrets,
    },
    deps.send,
  );
  return { attempt, startedAt, result };
}

/**
 * An attempt this process could not sign for want of a key is made again at the same step of the
 * schedule, as often as it takes, no sooner than this: the step may be 0 s (the first attempt).
 */
const KEY_MISSING_RETRY_MS = 60_000;

/** Retry-After may lengthen a wait up to this, never shorten one below the schedule. */
const RETRY_AFTER_CAP_MS = 60 * 60 * 1000;

/** Milliseconds until the next scheduled attempt, or null when the schedule is spent. */
export function nextRetryDelayMs(
  schedule: readonly number[],
  nextIndex: number,
  retryAfterSeconds: number | null,
  random = Math.random,
): number | null {
  if (nextIndex >= schedule.length) return null;
  const scheduled = schedule[nextIndex] * 1000;
  // ±10 % jitter spreads the retries of an outage so they do not all land in the same second.
  const jittered = Math.round(scheduled * (0.9 + 0.2 * random()));
  if (retryAfterSeconds === null) return jittered;
  const cap = Math.max(RETRY_AFTER_CAP_MS, scheduled);
  return Math.min(Math.max(jittered, retryAfterSeconds * 1000), cap);
}

function deliveryRow({ attempt, result, startedAt }: Outcome): OutboundDeliveryRow {
  return {
    id: attempt.id,
    workspace_id: attempt.workspace_id,
    endpoint_id: attempt.endpoint_id,
    message_id: attempt.message_id,
    event: attempt.event,
    attempt: attempt.attempt,
    trigger: attempt.trigger,
    url: attempt.url,
    response_status: result.responseStatus,
    response_body: result.responseBody,
    duration_ms: result.durationMs,
    error: result.error,
    success: result.success,
    created_at: startedAt,
  };
}

function retriesFor(outcomes: readonly Outcome[], schedule: readonly number[]): RetryRow[] {
  const retries: RetryRow[] = [];
  for (const { attempt, result } of outcomes) {
    if (result.success || result.gone || !attempt.active || attempt.trigger !== 'scheduled') continue;
    const index = attempt.schedule_index ?? 0;
    const nextIndex = result.keyMissing ? index : index + 1;
    const delay = result.keyMissing
      ? Math.max(KEY_MISSING_RETRY_MS, (schedule[index] ?? 0) * 1000)
      : nextRetryDelayMs(schedule, nextIndex, result.retryAfterSeconds);
    if (delay !== null)
      retries.push({
        workspace_id: attempt.workspace_id,
        id: newId('delivery'),
        message_id: attempt.message_id,
        schedule_index: nextIndex,
        delay_ms: delay,
      });
  }
  return retries;
}

/** Endpoints that failed in this batch and never succeeded in it; those that answered 410. */
function failingEndpoints(outcomes: readonly Outcome[]) {
  // A key this process lacks is no failure of the endpoint's: no streak, no disabling.
  const sent = outcomes.filter((outcome) => outcome.attempt.active && !outcome.result.keyMissing);
  const succeeded = new Set(sent.filter((o) => o.result.success).map((o) => o.attempt.endpoint_id));
  const failed = sent.filter((o) => !o.result.success && !succeeded.has(o.attempt.endpoint_id));
  const gone = sent.filter((o) => o.result.gone);
  return {
    failed: [...new Set(failed.map((o) => o.attempt.endpoint_id))],
    gone: [...new Set(gone.map((o) => o.attempt.endpoint_id))],
  };
}

/** The last failed attempt of each endpoint in the batch: where a disable is explained. */
function lastFailureByEndpoint(outcomes: readonly Outcome[]): Map<string, ClaimedAttempt> {
  const last = new Map<string, ClaimedAttempt>();
  for (const { attempt } of outcomes) last.set(attempt.endpoint_id, attempt);
  return last;
}

function failedMessages(failures: readonly Outcome[]) {
  const byMessage = new Map<string, { workspace_id: string; id: string; skipped: boolean }>();
  for (const { attempt } of failures) {
    const seen = byMessage.get(attempt.message_id) ?? {
      workspace_id: attempt.workspace_id,
      id: attempt.message_id,
      skipped: true,
    };
    seen.skipped &&= !attempt.active;
    byMessage.set(attempt.message_id, seen);
  }
  return [...byMessage.values()];
}

/** Streaks, disabling (410, or failing for days), skipping what a disable left queued, retries. */
async function recordFailures(tx: Tx, config: Config, failures: readonly Outcome[]) {
  const failing = failingEndpoints(failures);
  await startFailureStreaks(tx, failing.failed);
  const disabled = await disableFailingEndpoints(
    tx,
    failing.gone,
    failing.failed,
    config.WEBHOOK_DISABLE_AFTER_MS / 86_400_000,
  );
  for (const row of disabled) {
    const after = { active: false, disabledReason: row.disabled_reason };
    await recordAudit(tx, {
      workspaceId: row.workspace_id,
      action: 'webhook.disabled',
      targetId: row.id,
      after,
    });
  }
  const lastFailure = lastFailureByEndpoint(failures);
  await annotateDeliveries(
    tx,
    disabled.flatMap((row) => {
      const attempt = lastFailure.get(row.id);
      return attempt
        ? [{ workspace_id: attempt.workspace_id, id: attempt.id, note: row.disabled_reason }]
        : [];
    }),
  );
  await skipQueuedAttempts(
    tx,
    disabled.map((row) => row.id),
  );
  const retries = retriesFor(failures, config.WEBHOOK_RETRY_SCHEDULE);
  await scheduleRetries(tx, retries);
  await refreshFailedMessages(tx, failedMessages(failures));
  return retries.length > 0 ? Math.min(...retries.map((retry) => retry.delay_ms)) : null;
}

/**
 * Records a batch of outcomes in one transaction. Successes take one statement; failures then
 * update streaks, disable endpoints, skip and schedule. Outcomes whose lease another worker took
 * over are dropped: that worker records its own attempt. Returns the milliseconds until the
 * earliest retry it scheduled, if any.
 */
export async function recordOutcomes(
  db: DatabasePool,
  config: Config,
  outcomes: readonly Outcome[],
): Promise<number | null> {
  if (outcomes.length === 0) return null;
  return db.transaction(async (tx) => {
    // No wait for the WAL flush: if PostgreSQL itself crashed before it, the attempt rows come
    // back with the records and are sent again (at-least-once holds), and no commit waits on disk.
    await relaxCommit(tx);
    const recorded = await recordDeliveries(tx, outcomes.map(deliveryRow));
    const failures = outcomes.filter(
      (outcome) => !outcome.result.success && recorded.has(outcome.attempt.id),
    );
    return failures.length > 0 ? recordFailures(tx, config, failures) : null;
  });
}
