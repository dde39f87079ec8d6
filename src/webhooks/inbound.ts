// Inbound webhooks: a sender POSTs a payload to /api/webhooks/inbound/{endpointId}; it becomes an
// event through the same ingest pipeline as the API. Every receipt at a known INBOUND endpoint is
// a delivery record, failed ones included; a sender's repeat of a received message (same
// `webhook-id` or `Idempotency-Key`) gets the first answer back and changes nothing.
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/pool.ts';
import { ingestEvents } from '../events/ingest.ts';
import type { AppContext } from '../http/context.ts';
import {
  AppError,
  BadRequestError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from '../http/errors.ts';
import { MALFORMED_JSON } from '../http/malformedJson.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { findInboundReceipt, insertInboundDelivery } from './deliveryQueries.ts';
import { type EndpointRow, findEndpointById } from './endpointQueries.ts';
import { type InboundPayload, InboundPayloadSchema } from './schemas.ts';
import { RESPONSE_BODY_LIMIT } from './sender.ts';
import { verifyHex, verifyStandard } from './signing.ts';

export type InboundRequest = {
  endpointId: string;
  path: string;
  rawBody: Buffer;
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
  return [endpoint.secret, previousLive ? endpoint.previous_secret : null].filter(
    (s): s is string => s !== null,
  );
}

function checkSignature(endpoint: EndpointRow, request: InboundRequest): void {
  if (endpoint.secret === null) return;
  const secrets = liveSecrets(endpoint);
  const hex = request.header('x-webhook-signature');
  const standard = {
    id: request.header('webhook-id'),
    timestamp: request.header('webhook-timestamp'),
    signature: request.header('webhook-signature'),
  };
  if (hex === undefined && standard.signature === undefined)
    throw new UnauthorizedError(
      'This endpoint requires a signature: send X-Webhook-Signature or webhook-signature.',
    );
  const valid =
    (hex !== undefined && verifyHex(secrets, request.rawBody, hex)) ||
    verifyStandard(secrets, request.rawBody, standard);
  if (!valid)
    throw new UnauthorizedError(
      'The signature does not match: X-Webhook-Signature must be the hex HMAC-SHA256 of the raw body keyed ' +
        'with the endpoint secret, or send a valid Standard Webhooks signature.',
    );
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

/** Ingest and the success record commit together; a concurrent repeat loses on the unique key. */
async function ingest(db: Db, endpoint: EndpointRow, payload: InboundPayload, record: RecordFields) {
  const deliveryId = newId('delivery');
  const answer: Received = { received: true, deliveryId };
  try {
    await db.transaction(async (tx) => {
      await ingestEvents(tx, endpoint.workspace_id, [payload], { source: 'webhook' });
      await insertInboundDelivery(tx, {
        ...record,
        id: deliveryId,
        event: payload.type,
        responseStatus: 200,
        responseBody: JSON.stringify(answer),
        error: null,
        success: true,
        durationMs: Math.round(performance.now() - record.started),
      });
    });
    return answer;
  } catch (error) {
    if (!(error instanceof UniqueIntegrityConstraintViolationError) || record.idempotencyKey === null)
      throw asPayloadError(error);
    const first = await findInboundReceipt(db, endpoint.id, record.idempotencyKey);
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
};

/** The failed receipt, written after the ingest rolled back. */
async function recordFailure(db: Db, record: RecordFields, event: string | null, error: unknown) {
  const status = error instanceof AppError ? error.status : 500;
  const message = error instanceof AppError ? error.message : 'internal error';
  const detail = error instanceof ValidationError ? `${message} ${JSON.stringify(error.errors)}` : message;
  await insertInboundDelivery(db, {
    ...record,
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

export async function receiveInbound(app: AppContext, request: InboundRequest): Promise<Received> {
  const started = performance.now();
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
    checkSignature(endpoint, request);
    record.idempotencyKey = idempotencyKey(request);
    const first = record.idempotencyKey
      ? await findInboundReceipt(app.db, endpoint.id, record.idempotencyKey)
      : null;
    if (first) return { received: true, deliveryId: first };
    event = typeOf(request.body);
    const payload = parsePayload(endpoint, request.body);
    return await ingest(app.db, endpoint, payload, record);
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
