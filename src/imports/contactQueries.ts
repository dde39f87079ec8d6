// The set-wise merge of a contacts import: the last row of an email wins (earlier ones are
// duplicates); each email is inserted or, when it exists, updated with the fields the row gives
// (attributes merged key by key); contact.created / contact.updated for each contact that changed.
import type { IdentifierSqlToken } from 'slonik';
import { z } from 'zod';
import { sql, type Tx } from '../db/pool.ts';
import { AFFECTED } from './stagingQueries.ts';

export async function markRepeatedEmails(tx: Tx, staging: IdentifierSqlToken) {
  await tx.query(sql.typeAlias('void')`
    update ${staging} s set skip = 'duplicate'
    from (select line, row_number() over (partition by email order by line desc) as nth from ${staging}) d
    where d.line = s.line and d.nth > 1
  `);
}

const Upserted = z.object({ created: z.number(), updated: z.number() });

/**
 * Inserts or updates every contact of the file in one statement. An anonymousId is given only
 * when nobody has it (nor kept it from a merge) and no earlier row of the file took it, and never
 * replaces one a contact has: an import does not re-identify anyone.
 */
export async function upsertContacts(
  tx: Tx,
  workspaceId: string,
  staging: IdentifierSqlToken,
  emit: { created: boolean; updated: boolean },
) {
  return tx.one(sql.type(Upserted)`
    with source as (
      select s.*, case when s.anonymous_id is not null
          and row_number() over (partition by s.anonymous_id order by s.line) = 1
          and not exists (select 1 from contacts o
                          where o.workspace_id = ${workspaceId} and o.anonymous_id = s.anonymous_id)
          and not exists (select 1 from contact_anonymous_ids k
                          where k.workspace_id = ${workspaceId} and k.anonymous_id = s.anonymous_id)
        then s.anonymous_id end as free_anonymous_id
      from ${staging} s where s.skip is null
    ), upserted as (
      insert into contacts as c (workspace_id, id, email, first_name, last_name, phone, anonymous_id, attributes)
      select ${workspaceId}, new_contact_id, email, first_name, last_name, phone, free_anonymous_id, attributes
      from source
      on conflict (workspace_id, email) where email is not null do update set
        first_name = coalesce(excluded.first_name, c.first_name),
        last_name = coalesce(excluded.last_name, c.last_name),
        phone = coalesce(excluded.phone, c.phone),
        anonymous_id = coalesce(c.anonymous_id, excluded.anonymous_id),
        attributes = c.attributes || excluded.attributes,
        updated_at = now()
      where (c.first_name, c.last_name, c.phone, c.anonymous_id, c.attributes) is distinct from
        (coalesce(excluded.first_name, c.first_name), coalesce(excluded.last_name, c.last_name),
         coalesce(excluded.phone, c.phone), coalesce(c.anonymous_id, excluded.anonymous_id),
         c.attributes || excluded.attributes)
      returning c.id, c.email, c.first_name, c.last_name, (c.xmax = 0) as created
    ), emitted as (
      insert into outgoing_events (id, workspace_id, type, data)
      select case when u.created then s.created_outbox_id else s.updated_outbox_id end, ${workspaceId},
        case when u.created then 'contact.created' else 'contact.updated' end,
        jsonb_build_object('contactId', u.id, 'email', u.email, 'firstName', u.first_name, 'lastName', u.last_name)
      from upserted u join source s on s.email = u.email
      where (u.created and ${emit.created}) or (not u.created and ${emit.updated})
    ), affected as (
      insert into ${AFFECTED} (contact_id, created) select id, created from upserted
    )
    select count(*) filter (where created)::int as created, count(*) filter (where not created)::int as updated
    from upserted
  `);
}
