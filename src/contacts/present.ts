// How a contact row leaves the service: the API shape and the outgoing events' data.
import type { ContactRow } from './queries.ts';

export type Contact = ReturnType<typeof toContact>;

export function toContact(row: ContactRow) {
  return {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    phone: row.phone,
    anonymousId: row.anonymous_id,
    attributes: row.attributes,
    leadScore: row.lead_score,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function contactEventData(row: ContactRow) {
  return { contactId: row.id, email: row.email, firstName: row.first_name, lastName: row.last_name };
}
