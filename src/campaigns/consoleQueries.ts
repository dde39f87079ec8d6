// A contact's enrollments with their campaign's name, newest first, for the contact page.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

const EnrollmentOfContact = z.object({
  id: z.string(),
  campaign_id: z.string(),
  name: z.string(),
  status: z.string(),
  exit_reason: z.string().nullable(),
  enrolled_at: z.string(),
  completed_at: z.string().nullable(),
});

export async function listEnrollmentsOfContact(
  db: Db,
  workspaceId: string,
  contactId: string,
  limit: number,
) {
  return db.any(sql.type(EnrollmentOfContact)`
    select e.id, e.campaign_id, c.name, e.status, e.exit_reason, e.enrolled_at, e.completed_at
    from enrollments e join campaigns c on c.workspace_id = e.workspace_id and c.id = e.campaign_id
    where e.workspace_id = ${workspaceId} and e.contact_id = ${contactId}
    order by e.enrolled_at desc, e.id desc
    limit ${limit}
  `);
}
