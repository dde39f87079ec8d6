// How events leave the service: stored rows, or rows just built by ingest, as API objects.
import type { ContactRow } from '../contacts/index.ts';
import type { Db } from '../db/pool.ts';
import type { IngestItem, TrackingFields } from './ingestItem.ts';
import { type EventRow, findEventsByIds, type NewEvent } from './queries.ts';

export type ContactSummary = {
  id: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
};

/** Where an event came from, as the API names it (each optional). */
export type IngestedEvent = {
  id: string;
  type: string;
  metadata: Record<string, unknown>;
  timestamp: string;
  contact: ContactSummary | null;
} & TrackingFields;

type Tracking = Pick<
  EventRow,
  'session_id' | 'page_url' | 'referrer' | 'utm_source' | 'utm_medium' | 'utm_campaign'
>;

/** Tracking fields appear only when set, as documented. */
function tracking(row: Tracking) {
  const fields = {
    sessionId: row.session_id,
    pageUrl: row.page_url,
    referrer: row.referrer,
    utmSource: row.utm_source,
    utmMedium: row.utm_medium,
    utmCampaign: row.utm_campaign,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)) as Partial<
    Record<keyof typeof fields, string>
  >;
}

export function toEvent(row: EventRow): IngestedEvent {
  return {
    id: row.id,
    type: row.type,
    metadata: row.metadata,
    timestamp: row.occurred_at,
    contact: row.contact_id
      ? {
          id: row.contact_id,
          email: row.contact_email,
          firstName: row.contact_first_name,
          lastName: row.contact_last_name,
        }
      : null,
    ...tracking(row),
  };
}

export function toNewEvent(
  item: IngestItem,
  id: string,
  contactId: string | null,
  occurredAt: string | null,
): NewEvent {
  return {
    id,
    contact_id: contactId,
    type: item.type.trim(),
    metadata: item.metadata ?? {},
    session_id: item.sessionId ?? null,
    page_url: item.pageUrl ?? null,
    referrer: item.referrer ?? null,
    utm_source: item.utmSource ?? null,
    utm_medium: item.utmMedium ?? null,
    utm_campaign: item.utmCampaign ?? null,
    occurred_at: occurredAt,
  };
}

export function toStoredEvent(
  event: NewEvent,
  occurredAt: string,
  contacts: Map<string, ContactRow>,
): IngestedEvent {
  const contact = event.contact_id ? contacts.get(event.contact_id) : undefined;
  return toEvent({
    ...event,
    occurred_at: occurredAt,
    contact_email: contact?.email ?? null,
    contact_first_name: contact?.first_name ?? null,
    contact_last_name: contact?.last_name ?? null,
  });
}

export async function loadEvents(db: Db, workspaceId: string, ids: string[]) {
  const rows = await findEventsByIds(db, workspaceId, ids);
  return new Map(rows.map((row) => [row.id, toEvent(row)]));
}
