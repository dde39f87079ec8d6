// Events over HTTP: listing, and ingest of one event or a batch, each in one transaction.

import { findContact } from '../contacts/index.ts';
import { NotFoundError, ValidationError } from '../core/errors.ts';
import type { Db } from '../db/pool.ts';
import { type Ingesting, ingestCoalesced } from './coalesce.ts';
import { type IngestItem, type IngestResult, ingestEvents } from './ingest.ts';
import { toEvent } from './present.ts';
import { type EventFilter, findEventCursor, listEvents } from './queries.ts';
import { IdempotencyKey, type IngestEventBody } from './schemas.ts';

export async function listEventsFor(
  db: Db,
  workspaceId: string,
  { beforeId, ...filter }: Omit<EventFilter, 'after'> & { beforeId?: string },
) {
  let contactId = filter.contactId;
  if (contactId) {
    // A merged-away id still names its primary's events.
    const contact = await findContact(db, workspaceId, contactId);
    if (!contact) throw new NotFoundError('Contact');
    contactId = contact.id;
  }
  const after = beforeId ? await findEventCursor(db, workspaceId, beforeId) : undefined;
  if (after === null) {
    throw new ValidationError([
      { path: 'query.beforeId', message: 'no event of this workspace has this id' },
    ]);
  }
  const before = filter.before ? new Date(filter.before).toISOString() : undefined;
  return (await listEvents(db, workspaceId, { ...filter, contactId, before, after })).map(toEvent);
}

/** The `Idempotency-Key` header, checked like a body field. */
export function headerKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = IdempotencyKey.safeParse(value);
  if (!parsed.success) {
    throw new ValidationError(
      parsed.error.issues.map((issue) => ({ path: 'header.idempotency-key', message: issue.message })),
    );
  }
  return parsed.data;
}

export function toIngestItem({ id, ...body }: IngestEventBody, idempotencyKey?: string): IngestItem {
  return { ...body, idempotencyKey: id ?? idempotencyKey };
}

export async function ingestOne(
  app: Ingesting,
  workspaceId: string,
  body: IngestEventBody,
  options: { header: string | undefined; maxWaitMs: number },
): Promise<IngestResult> {
  const { header } = options;
  if (header !== undefined && body.id !== undefined && header !== body.id) {
    throw new ValidationError([
      { path: 'body.id', message: 'must equal the Idempotency-Key header when both are sent' },
    ]);
  }
  return ingestCoalesced(app, workspaceId, toIngestItem(body, header), options.maxWaitMs);
}

/** A batch's Idempotency-Key covers each item by position, unless the item brings its own id. */
export async function ingestBatch(
  app: Ingesting,
  workspaceId: string,
  events: IngestEventBody[],
  header: string | undefined,
) {
  const items = events.map((body, position) =>
    toIngestItem(body, header === undefined ? undefined : `batch:${header}:${position}`),
  );
  const results = await app.db.transaction((tx) =>
    ingestEvents(tx, app.effects.contacts, workspaceId, items, { source: 'batch' }),
  );
  return { data: results.map((result) => result.event) };
}
