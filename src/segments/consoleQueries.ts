// What the console shows of segments beside contacts: a contact's memberships with when each began,
// and the segments the contact list's filter offers.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

const Membership = z.object({ segment_id: z.string(), name: z.string(), entered_at: z.string() });

export async function listMembershipsOfContact(db: Db, workspaceId: string, contactId: string) {
  return db.any(sql.type(Membership)`
    select m.segment_id, s.name, m.entered_at from segment_memberships m
    join segments s on s.workspace_id = m.workspace_id and s.id = m.segment_id
    where m.workspace_id = ${workspaceId} and m.contact_id = ${contactId}
    order by m.entered_at desc, m.segment_id
    limit 500
  `);
}

const SEGMENT_CHOICES = 1000;

export async function listSegmentNames(db: Db, workspaceId: string) {
  return db.any(sql.type(z.object({ id: z.string(), name: z.string() }))`
    select id, name from segments where workspace_id = ${workspaceId} order by lower(name), id limit ${SEGMENT_CHOICES}
  `);
}
