// The identities a contact holds beside its own id and anonymousId: the ids of contacts merged into
// it (aliases, answered for 30 days) and the anonymousIds it kept from them.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';

const Identity = z.object({
  kind: z.enum(['merged_id', 'anonymous_id']),
  value: z.string(),
  until: z.string().nullable(),
});
export type Identity = z.infer<typeof Identity>;

export async function listMergedIdentities(db: Db, workspaceId: string, contactId: string) {
  return db.any(sql.type(Identity)`
    select 'merged_id' as kind, a.alias_id as value, a.expires_at as until from contact_aliases a
    where a.workspace_id = ${workspaceId} and a.contact_id = ${contactId} and a.expires_at > now()
    union all
    select 'anonymous_id', k.anonymous_id, null from contact_anonymous_ids k
    where k.workspace_id = ${workspaceId} and k.contact_id = ${contactId}
    order by 1, 2
    limit 200
  `);
}
