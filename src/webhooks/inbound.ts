// Inbound webhooks: a sender POSTs a payload to /api/webhooks/inbound/{endpointId}; it becomes an
// event through the same ingest pipeline as the API. Every receipt at a known INBOUND endpoint is
// a delivery record, failed ones included; a sender's repeat of a received message (same
// `webhook-id` or `Idempotency-Key`) gets the first answer back and changes nothing. The spec's
// hex signature covers only the body, so the dedupe headers beside it are not the sender's word:
// a hex-signed body already received within the replay window is recorded as a duplicate.
import { createHash } from 'node:crypto';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import type { AppContext } from '../core/context.ts';
import {
  AppError,
  BadRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnauthorizedError,
  ValidationError,
} from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/pool.ts';
import { ingestEvents } from '../events/index.ts';
import { MALFORMED_JSON, OversizedBody } from '../http/malformedJson.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { findInboundReceipt, insertInboundDelivery, lockAndFindBodyReceipt } from './deliveryQueries.ts';
import { type EndpointRow, findEndpointById, type SignatureScheme } from './endpointQueries.ts';
import { type InboundPayload, InboundPayloadSchema } from './schemas.ts';
import { RESPONSE_BODY_LIMIT } from './sender.ts';
import { verifyHex, verifyStandard } from './signing.ts';
import { openLiveSecrets, type StoredSigningSecret } from './signingSecrets.ts';

export type InboundRequest = {
  endpointId: string;
  path: string;
  /** The bytes received, exactly; null when they were not captured (then nothing can verify). */
  rawBody: Buffer | null;
  body: unknown;
  header: (name: string) => string | undefined;
};

export type Received = { received: true; deliveryId: string };

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

function liveSecrets(endpoint: EndpointRow): string[] {
  const previousLive =
    endpoint.previous_secret !== null &&
    endpoint.previous_secret_expires_at !== null &&
    Date.parse(endpoint.previous_secret_expires_at) > Date.now();
  const stored = [endpoint.secret, previousLive ? endpoint.previous_secret : null].filter(
    (s): s is StoredSigningSecret => s !== null,
  );
  const opened = openLiveSecrets(endpoint.workspace_id, endpoint.id, stored);
  // A secret that cannot be opened verifies nothing: the sender is refused, never let through.
  if (opened.secretError !== null) throw new UnauthorizedError(UNVERIFIABLE);
  return opened.secrets;
}

const UNVERIFIABLE =
  'This endpoint’s signing secret cannot be read by the service (its encryption key is not configured); ' +
  'ask the workspace administrator to rotate the endpoint’s secret.';

/** Which signature a request was accepted with; replays are guarded differently for each. */
type Verified = 'unsigned' | 'hex' | 'standard';

const MISSING: Record<SignatureScheme, string> = {
  either: 'This endpoint requires a signature: send X-Webhook-Signature or webhook-signature.',
  hex: 'This endpoint requires X-Webhook-Signature, the hex HMAC-SHA256 of the raw body.',
  standard:
    'This endpoint accepts only Standard Webhooks signatures: send webhook-id, webhook-timestamp and ' +
    'webhook-signature.',
};

const MISMATCH: Record<SignatureScheme, string> = {
  either:
    'The signature does not match: X-Webhook-Signature must be the hex HMAC-SHA256 of the raw body keyed ' +
    'with the endpoint secret, or send a valid Standard Webhooks signature.',
  hex: 'The signature does not match: X-Webhook-Signature must be the hex HMAC-SHA256 of the raw body keyed with the endpoint secret.',
  standard:
    'The signature does not match, or webhook-timestamp is more than 5 minutes from our clock: sign ' +
    '"id.timestamp.body" as Standard Webhooks describes.',
};

function checkSignature(endpoint: EndpointRow, request: InboundRequest): Verified {
  if (endpoint.secret === null) return 'unsigned';
  const scheme = endpoint.signature_scheme;
  const hex = scheme === 'standard' ? undefined : request.header('x-webhook-signature');
  const standard = {
    id: request.header('webhook-id'),
    timestamp: request.header('webhook-timestamp'),
    signature: scheme === 'hex' ? undefined : request.header('webhook-signature'),
  };
  if (hex === undefined && standard.signature === undefined) throw new UnauthorizedError(MISSING[scheme]);
  // Only the exact bytes received can verify; a body that was not captured verifies nothing.
  if (request.rawBody === null)
    throw new UnauthorizedError('The request body was not received as sent, so no signature can match it.');
  const secrets = liveSecrets(endpoint);
  if (standard.signature !== undefined && verifyStandard(secrets, request.rawBody, standard))
    return 'standard';
  if (hex !== undefined && verifyHex(secrets, request.rawBody, hex)) return 'hex';
  throw new UnauthorizedError(MISMATCH[scheme]);
}

function idempotencyKey(request: InboundRequest): string | null {
  const key = request.header('webhook-id') ?? request.header('idempotency-key');
  if (key === undefined) return null;
  if (!IDEMPOTENCY_KEY.test(key))
    throw new BadRequestError('webhook-id / Idempotency-Key must be 1–200 visible ASCII characters.');
  return key;
}

function parsePayload(endpoint: EndpointRow, body: unknown): InboundPayload {
  if (body === MALFORMED_JSON)
    throw new BadRequestError('The request body is not valid JSON.', 'malformed-json');
  const parsed = InboundPayloadSchema.safeParse(body);
  if (!parsed.success) throw new ValidationError(zodIssuesToFieldErrors(parsed.error.issues, 'body'));
  if (endpoint.events.length > 0 && !endpoint.events.includes(parsed.data.type)) {
    throw new ValidationError([
      { path: 'body.type', message: `this endpoint accepts only ${endpoint.events.join(', ')}` },
    ]);
  }
  return parsed.data;
}

/**
 * Ingest and the success record commit together; a concurrent repeat loses on the unique key. A
 * hex-signed body already received within the replay window is recorded as a duplicate instead.
 */
async function ingest(app: AppContext, endpoint: EndpointRow, payload: InboundPayload, record: RecordFields) {
  const deliveryId = newId('delivery');
  try {
    return await app.db.transaction(async (tx) => {
      const received = { ...record, id: deliveryId, event: payload.type, responseStatus: 200, success: true };
      const earlier = record.replay
        ? await lockAndFindBodyReceipt(tx, endpoint, record.replay.digest, record.replay.windowSeconds)
        : null;
      const answer: Received = { received: true, deliveryId: earlier ?? deliveryId };
      if (!earlier)
        await ingestEvents(tx, app.effects.contacts, endpoint.workspace_id, [payload], { source: 'webhook' });
      await insertInboundDelivery(tx, {
        ...received,
        responseBody: JSON.stringify(answer),
        error: earlier
          ? `duplicate of ${earlier}: the same body was received within the replay window; no event was created`
          : null,
        bodyDigest: earlier ? null : (record.replay?.digest ?? null),
        // A duplicate is never a first receipt: its key repeated finds the body again, and the same answer.
        idempotencyKey: earlier ? null : record.idempotencyKey,
        durationMs: Math.round(performance.now() - record.started),
      });
      return answer;
    });
  } catch (error) {
    if (!(error instanceof UniqueIntegrityConstraintViolationError) || record.idempotencyKey === null)
      throw asPayloadError(error);
    const first = await findInboundReceipt(app.db, endpoint, record.idempotencyKey);
    if (!first) throw error;
    return { received: true as const, deliveryId: first };
  }
}

type RecordFields = {
  workspaceId: string;
  endpointId: string;
  url: string;
  idempotencyKey: string | null;
  started: number;
  /** Hex-signed receipts only: the body's digest and how long a repeat of it counts as a replay. */
  replay?: { digest: string; windowSeconds: number };
};

/** The failed receipt, written after the ingest rolled back. */
async function recordFailure(db: Db, record: RecordFields, event: string | null, error: unknown) {
  const status = error instanceof AppError ? error.status : 500;
  const message = error instanceof AppError ? error.message : 'internal error';
  const detail = error instanceof ValidationError ? `${message} ${JSON.stringify(error.errors)}` : message;
  await insertInboundDelivery(db, {
    ...record,
    bodyDigest: null,
    id: newId('delivery'),
    event,
    responseStatus: status,
    responseBody: detail.slice(0, RESPONSE_BODY_LIMIT),
    error: detail.slice(0, RESPONSE_BODY_LIMIT),
    success: false,
    durationMs: Math.round(performance.now() - record.started),
  });
}

/** The payload's type as sent, for the record of a receipt that failed validation. */
function typeOf(body: unknown): string | null {
  const type = (body as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type.slice(0, 200) : null;
}

/** An unknown contactId is the payload's fault here (the endpoint exists): a 400, not a 404. */
function asPayloadError(error: unknown): unknown {
  if (!(error instanceof NotFoundError)) return error;
  return new ValidationError([{ path: 'body.contactId', message: error.message }]);
}

/**
 * A body over the limit was not read: a known INBOUND endpoint records the refused receipt (status
 * 413 and the size, never the body), so the sender's failures show in its delivery log.
 */
async function refuseOversized(
  app: AppContext,
  request: InboundRequest,
  body: OversizedBody,
): Promise<never> {
  const refusal = new PayloadTooLargeError('1 MB');
  const endpoint = await findEndpointById(app.db, request.endpointId);
  if (endpoint?.direction === 'INBOUND') {
    const size = body.bytes === null ? 'a body' : `a body of ${body.bytes} bytes`;
    await insertInboundDelivery(app.db, {
      id: newId('delivery'),
      workspaceId: endpoint.workspace_id,
      endpointId: endpoint.id,
      event: null,
      url: request.path,
      responseStatus: 413,
      responseBody: refusal.message,
      durationMs: 0,
      error: `${size} over the 1 MB limit: refused unread, not stored`,
      success: false,
      idempotencyKey: null,
      requestBytes: body.bytes,
    });
  }
  throw refusal;
}

export async function receiveInbound(app: AppContext, request: InboundRequest): Promise<Received> {
  const started = performance.now();
  if (request.body instanceof OversizedBody) return refuseOversized(app, request, request.body);
  const endpoint = await findEndpointById(app.db, request.endpointId);
  if (endpoint?.direction !== 'INBOUND')
    throw new NotFoundError('Inbound webhook endpoint', `No inbound webhook endpoint ${request.endpointId}.`);
  const record: RecordFields = {
    workspaceId: endpoint.workspace_id,
    endpointId: endpoint.id,
    url: request.path,
    idempotencyKey: null,
    started,
  };
  let event: string | null = null;
  try {
    if (!endpoint.active)
      throw new NotFoundError(
        'Inbound webhook endpoint',
        `The inbound webhook endpoint ${endpoint.id} is disabled.`,
      );
    const verified = checkSignature(endpoint, request);
    record.idempotencyKey = idempotencyKey(request);
    const first = record.idempotencyKey
      ? await findInboundReceipt(app.db, endpoint, record.idempotencyKey)
      : null;
    if (first) return { received: true, deliveryId: first };
    event = typeOf(request.body);
    const payload = parsePayload(endpoint, request.body);
    const windowSeconds = Math.ceil(app.config.WEBHOOK_INBOUND_REPLAY_WINDOW_MS / 1000);
    if (verified === 'hex' && windowSeconds > 0 && request.rawBody !== null)
      record.replay = { digest: createHash('sha256').update(request.rawBody).digest('hex'), windowSeconds };
    return await ingest(app, endpoint, payload, record);
  } catch (error) {
    await recordFailure(app.db, record, event, error).catch((recordError) =>
      app.log.error(
        { err: recordError, endpointId: endpoint.id },
        'could not record a failed inbound receipt',
      ),
    );
    throw error;
  }
}
