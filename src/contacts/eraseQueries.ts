// Erasing a person: the contact and everything recorded about it, in one statement.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

/**
 * Deletes the contact with its events, segment memberships, enrollments, score history, merge
 * aliases and kept anonymousIds; returns the segments it was a member of (for segment.exited).
 * Events and enrollments are deleted here rather than left to the foreign keys: an event's key
 * only nulls its contact, which would keep the person's history without a person.
 */
export async function eraseContactRows(db: Db, workspaceId: string, contactId: string): Promise<string[]> {
  const rows = await db.anyFirst(sql.type(z.object({ segment_id: z.string() }))`
    with exited as (
      delete from segment_memberships
      where workspace_id = ${workspaceId} and contact_id = ${contactId}
      returning segment_id, entered_at
    ), events as (
      delete from events where workspace_id = ${workspaceId} and contact_id = ${contactId}
    ), enrollments as (
      delete from enrollments where workspace_id = ${workspaceId} and contact_id = ${contactId}
    ), scores as (
      -- Score history has no foreign key to its contact (sql/0032).
      delete from score_changes where workspace_id = ${workspaceId} and contact_id = ${contactId}
    ), contact as (
      -- contact_aliases and contact_anonymous_ids follow by on delete cascade.
      delete from contacts where workspace_id = ${workspaceId} and id = ${contactId}
    )
    select segment_id from exited order by entered_at, segment_id
  `);
  return [...rows];
}
