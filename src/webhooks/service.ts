// Webhook endpoints and the delivery log: what the routes and the CLI call.
import type { DatabasePool } from 'slonik';
import { recordAudit } from '../audit/index.ts';
import type { Config } from '../config.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import { pageWindow } from '../db/paginate.ts';
import type { Db } from '../db/pool.ts';
import { ALLOW_PRIVATE_HINT, checkTargetAtSave, type Resolver } from '../net/ssrf.ts';
import {
  type DeliveryFilter,
  type DeliveryRow,
  findDelivery,
  listDeliveries,
  queueManualAttempts,
  skipQueuedAttempts,
} from './deliveryQueries.ts';
import {
  deleteEndpoint,
  type EndpointRow,
  findEndpoint,
  insertEndpoint,
  listEndpointsWithCounts,
  rotateEndpointSecret,
  updateEndpoint,
} from './endpointQueries.ts';
import { planReplay } from './replay.ts';
import {
  type CreateEndpointInput,
  type Delivery,
  type Endpoint,
  type UpdateEndpointInput,
  unknownEventTypeIssues,
} from './schemas.ts';
import { generateSecret } from './signing.ts';
import { sealSigningSecret } from './signingSecrets.ts';

export const ROTATION_GRACE_SECONDS = 24 * 60 * 60;

export function toEndpoint(row: EndpointRow): Endpoint {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: row.events,
    direction: row.direction,
    signatureScheme: row.direction === 'INBOUND' ? row.signature_scheme : null,
    active: row.active,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    messageId: row.message_id,
    direction: row.direction,
    event: row.event,
    attempt: row.attempt,
    trigger: row.trigger,
    url: row.url,
    responseStatus: row.response_status,
    responseBody: row.response_body,
    durationMs: row.duration_ms,
    error: row.error,
    success: row.success,
    requestBytes: row.request_bytes,
    createdAt: row.created_at,
  };
}

/**
 * Rules that depend on the deployment: https in production, and no private target, checked the
 * way a send checks it (the literal, or every address the name resolves to now).
 */
export async function checkUrlAllowed(config: Config, url: string, resolve?: Resolver): Promise<void> {
  const parsed = new URL(url);
  if (parsed.protocol === 'http:' && !config.webhookAllowHttp) {
    throw new ValidationError([
      { path: 'body.url', message: 'must use https (plain http is not allowed here)' },
    ]);
  }
  if (config.ALLOW_PRIVATE_TARGETS) return;
  try {
    await checkTargetAtSave(parsed.hostname, resolve);
  } catch {
    throw new ValidationError([
      {
        path: 'body.url',
        message: `must not point at a private, loopback or link-local address (it is, or resolves to, one); ${ALLOW_PRIVATE_HINT}`,
      },
    ]);
  }
}

function defaultName(input: CreateEndpointInput): string {
  return input.url ? new URL(input.url).host.slice(0, 100) : 'Inbound endpoint';
}

export async function createEndpoint(
  db: Db,
  config: Config,
  workspaceId: string,
  input: CreateEndpointInput,
) {
  if (input.url) await checkUrlAllowed(config, input.url);
  const id = newId('webhookEndpoint');
  const secret = input.signed ? generateSecret() : null;
  const row = await db.transaction(async (tx) => {
    const inserted = await insertEndpoint(tx, {
      id,
      workspaceId,
      name: input.name ?? defaultName(input),
      direction: input.direction,
      url: input.url ?? null,
      events: input.events ?? [],
      signatureScheme: input.signatureScheme ?? 'either',
      secret: secret === null ? null : sealSigningSecret(workspaceId, id, secret),
      active: input.active,
    });
    await recordAudit(tx, {
      workspaceId,
      action: 'webhook.created',
      targetId: id,
      after: toEndpoint(inserted),
    });
    return inserted;
  });
  return { ...toEndpoint(row), secret };
}

export async function listEndpoints(db: Db, workspaceId: string) {
  const rows = await listEndpointsWithCounts(db, workspaceId);
  return rows.map((row) => ({ ...toEndpoint(row), _count: { deliveries: row.delivery_count } }));
}

async function requireEndpoint(db: Db, workspaceId: string, endpointId: string, lock = false) {
  const row = await findEndpoint(db, workspaceId, endpointId, lock);
  if (!row)
    throw new NotFoundError('Webhook endpoint', `No webhook endpoint ${endpointId} in this workspace.`);
  return row;
}

/** Deactivating turns what was queued into "skipped" records, in the same transaction. */
export async function changeEndpoint(
  db: Db,
  config: Config,
  workspaceId: string,
  endpointId: string,
  changes: UpdateEndpointInput,
): Promise<Endpoint> {
  // Resolved before the row is locked: a slow DNS answer must not hold the lock.
  if (changes.url !== undefined) await checkUrlAllowed(config, changes.url);
  return db.transaction(async (tx) => {
    const current = await requireEndpoint(tx, workspaceId, endpointId, true);
    if (changes.events !== undefined && current.direction === 'OUTBOUND') {
      const issues = unknownEventTypeIssues(changes.events);
      if (issues.length > 0)
        throw new ValidationError(
          issues.map((issue) => ({ path: `body.${issue.path.join('.')}`, message: issue.message })),
        );
    }
    if (changes.signatureScheme !== undefined && current.direction === 'OUTBOUND')
      throw new ValidationError([
        { path: 'body.signatureScheme', message: 'applies to INBOUND endpoints only' },
      ]);
    if (changes.url !== undefined) {
      if (current.direction === 'INBOUND')
        throw new ValidationError([{ path: 'body.url', message: 'applies to OUTBOUND endpoints only' }]);
    }
    const row = (await updateEndpoint(tx, workspaceId, endpointId, changes)) as EndpointRow;
    if (current.active && !row.active) await skipQueuedAttempts(tx, [endpointId]);
    const [before, after] = [toEndpoint(current), toEndpoint(row)];
    await recordAudit(tx, { workspaceId, action: 'webhook.updated', targetId: endpointId, before, after });
    return after;
  });
}

export async function removeEndpoint(db: Db, workspaceId: string, endpointId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const before = toEndpoint(await requireEndpoint(tx, workspaceId, endpointId, true));
    await deleteEndpoint(tx, workspaceId, endpointId);
    await recordAudit(tx, { workspaceId, action: 'webhook.deleted', targetId: endpointId, before });
  });
}

export async function rotateSecret(db: Db, workspaceId: string, endpointId: string) {
  const secret = generateSecret();
  const row = await db.transaction(async (tx) => {
    const rotated = await rotateEndpointSecret(
      tx,
      workspaceId,
      endpointId,
      sealSigningSecret(workspaceId, endpointId, secret),
      ROTATION_GRACE_SECONDS,
    );
    if (!rotated)
      throw new NotFoundError('Webhook endpoint', `No webhook endpoint ${endpointId} in this workspace.`);
    const after = { previousSecretExpiresAt: rotated.previous_secret_expires_at };
    await recordAudit(tx, { workspaceId, action: 'webhook.secretRotated', targetId: endpointId, after });
    return rotated;
  });
  return { ...toEndpoint(row), secret, previousSecretExpiresAt: row.previous_secret_expires_at };
}

export async function listDeliveryPage(
  db: Db,
  workspaceId: string,
  filter: DeliveryFilter,
  page: { page: number; limit: number },
) {
  const { rows, total } = await listDeliveries(db, workspaceId, filter, pageWindow(page));
  return { data: rows.map(toDelivery), page: page.page, limit: page.limit, total };
}

/**
 * Queues a manual attempt of the delivery's message; the dispatcher sends it at once, signed
 * afresh for the endpoint's URL now. A message whose delivery went to another URL than the
 * endpoint has now would take its stored payload (contact data) somewhere new: only a signed-in
 * ADMIN may do that, never an API key (a `webhooks:write` key can change the URL itself).
 */
export async function retryDelivery(
  db: Db,
  workspaceId: string,
  deliveryId: string,
  caller: { signedInAdmin: boolean },
) {
  return db.transaction(async (tx) => {
    const delivery = await findDelivery(tx, workspaceId, deliveryId);
    if (!delivery) throw new NotFoundError('Delivery', `No delivery ${deliveryId} in this workspace.`);
    if (delivery.direction === 'INBOUND' || delivery.message_id === null)
      throw new ConflictError(
        'Only outbound deliveries can be retried; this one was received.',
        'inbound-delivery',
      );
    const endpoint = await requireEndpoint(tx, workspaceId, delivery.endpoint_id);
    if (!endpoint.active)
      throw new ConflictError(
        'The endpoint is disabled: activate it (PATCH active true) first.',
        'endpoint-inactive',
      );
    if (delivery.url !== endpoint.url && !caller.signedInAdmin)
      throw new ForbiddenError(
        `The endpoint's URL changed after this delivery went to ${delivery.url ?? 'another URL'}: sending ` +
          'its stored payload to the new URL needs a signed-in workspace ADMIN (API keys cannot).',
        'url-changed',
      );
    const [queued] = await queueManualAttempts(tx, workspaceId, [delivery.message_id]);
    const after = { deliveryId, retryDeliveryId: queued.id, url: endpoint.url };
    await recordAudit(tx, { workspaceId, action: 'webhook.deliveryRetried', targetId: endpoint.id, after });
    return { deliveryId: queued.id };
  });
}

/**
 * Queues the endpoint's failed (or skipped) messages once more, for the dispatcher to send now.
 * Messages still waiting for a scheduled retry are left to it (sending them too would deliver
 * twice) and counted, as are those of a disabled endpoint.
 */
export async function replayFailedMessages(db: DatabasePool, workspaceId: string, endpointId: string) {
  const plan = await planReplay(db, { workspaceId, endpointId, failedOnly: true });
  const queued = await queueManualAttempts(
    db,
    workspaceId,
    plan.sendable.map((message) => message.id),
  );
  return { queued: queued.length, retrying: plan.retrying.length, inactive: plan.inactive.length };
}

export async function getEndpoint(db: Db, workspaceId: string, endpointId: string): Promise<Endpoint> {
  return toEndpoint(await requireEndpoint(db, workspaceId, endpointId));
}
