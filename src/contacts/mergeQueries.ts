// SQL of merging one contact into another. Merges are rare, so clarity beats round-trips here.

import { newId } from '../db/ids.ts';
import { type Db, sql } from '../db/pool.ts';
import { ContactRow, contactColumns } from './queries.ts';

/**
 * Moves events, segment memberships, enrollments, messages, score history, aliases, kept
 * anonymousIds, linked Telegram chats and web push subscriptions (an anonymous visitor's browser)
 * to the primary; the merge then drops the unverified browsers when the merged contact is
 * identified. An opt-out of either contact holds for the merged one.
 */
export async function moveContactData(db: Db, workspaceId: string, primaryId: string, secondaryId: string) {
  await db.query(sql.typeAlias('void')`
    with moved_events as (
      update events set contact_id = ${primaryId}
      where workspace_id = ${workspaceId} and contact_id = ${secondaryId}
    ), moved_memberships as (
      insert into segment_memberships (workspace_id, segment_id, contact_id, entered_at)
      select workspace_id, segment_id, ${primaryId}, entered_at from segment_memberships
      where workspace_id = ${workspaceId} and contact_id = ${secondaryId}
      on conflict (workspace_id, segment_id, contact_id)
        do update set entered_at = least(segment_memberships.entered_at, excluded.entered_at)
    ), moved_enrollments as (
      update enrollments set contact_id = ${primaryId}
      where workspace_id = ${workspaceId} and contact_id = ${secondaryId}
    ), moved_messages as (
      update messages set contact_id = ${primaryId}
      where workspace_id = ${workspaceId} and contact_id = ${secondaryId}
    ), moved_opt_outs as (
      insert into contact_subscriptions (workspace_id, contact_id, channel, status, reason, message_id, changed_at)
      select workspace_id, ${primaryId}, channel, status, reason, message_id, changed_at
      from contact_subscriptions
      where workspace_id = ${workspaceId} and contact_id = ${secondaryId} and status = 'unsubscribed'
      on conflict (workspace_id, contact_id, channel) do update
        set status = excluded.status, reason = excluded.reason, message_id = excluded.message_id,
            changed_at = excluded.changed_at
    ), moved_scores as (
      update score_changes set contact_id = ${primaryId}
      where workspace_id = ${workspaceId} and contact_id = ${secondaryId}
    ), moved_push_subscriptions as (
      update push_subscriptions set contact_id = ${primaryId}, updated_at = now()
      where workspace_id = ${workspaceId} and contact_id = ${secondaryId}
    ), moved_anonymous_ids as (
      update contact_anonymous_ids set contact_id = ${primaryId}
      where workspace_id = ${workspaceId} and contact_id = ${secondaryId}
    ), moved_telegram_chats as (
      update telegram_chats set contact_id = ${primaryId}
      where workspace_id = ${workspaceId} and contact_id = ${secondaryId}
    )
    update contact_aliases set contact_id = ${primaryId}
    where workspace_id = ${workspaceId} and contact_id = ${secondaryId}
  `);
}

/**
 * After a merge the primary may hold two active enrollments in one campaign. Unless its reentry
 * is "always" (which allows that), the earliest stays and the others are exited: "never" and
 * "after_completion" mean one run at a time, and the merged contact is one person.
 */
export async function exitDuplicateEnrollments(db: Db, workspaceId: string, contactId: string) {
  await db.query(sql.typeAlias('void')`
    update enrollments e set status = 'exited', exit_reason = 'merged', step_key = null, next_step_at = null,
      held = false, completed_at = now()
    from campaigns c
    where e.workspace_id = ${workspaceId} and e.contact_id = ${contactId} and e.status = 'active'
      and c.workspace_id = e.workspace_id and c.id = e.campaign_id and c.reentry <> 'always'
      and exists (
        select 1 from enrollments first
        where first.workspace_id = e.workspace_id and first.contact_id = e.contact_id
          and first.campaign_id = e.campaign_id
          and first.status = 'active' and (first.enrolled_at, first.id) < (e.enrolled_at, e.id))
  `);
}

/** Empty primary fields take the secondary's; primary attributes win key by key; scores add. */
export async function absorbContact(db: Db, primary: ContactRow, secondary: ContactRow): Promise<ContactRow> {
  return db.one(sql.type(ContactRow)`
    update contacts as c set
      email = coalesce(c.email, ${secondary.email}),
      first_name = coalesce(c.first_name, ${secondary.first_name}),
      last_name = coalesce(c.last_name, ${secondary.last_name}),
      phone = coalesce(c.phone, ${secondary.phone}),
      anonymous_id = coalesce(c.anonymous_id, ${secondary.anonymous_id}),
      attributes = ${sql.jsonb(secondary.attributes as never)} || c.attributes,
      lead_score = c.lead_score + ${secondary.lead_score},
      created_at = least(c.created_at, ${secondary.created_at}::timestamptz),
      updated_at = now()
    where c.workspace_id = ${primary.workspace_id} and c.id = ${primary.id}
    returning ${contactColumns}
  `);
}

/** An anonymousId the primary keeps besides its own (see sql/0010). */
export async function keepAnonymousId(db: Db, workspaceId: string, anonymousId: string, contactId: string) {
  await db.query(sql.typeAlias('void')`
    insert into contact_anonymous_ids (workspace_id, anonymous_id, contact_id)
    values (${workspaceId}, ${anonymousId}, ${contactId})
    on conflict (workspace_id, anonymous_id) do update set contact_id = excluded.contact_id
  `);
}

/** The secondary's id keeps resolving to the primary for 30 days. */
export async function insertAlias(db: Db, workspaceId: string, aliasId: string, contactId: string) {
  await db.query(sql.typeAlias('void')`
    insert into contact_aliases (workspace_id, alias_id, contact_id, expires_at)
    values (${workspaceId}, ${aliasId}, ${contactId}, now() + interval '30 days')
    on conflict (workspace_id, alias_id) do update set contact_id = excluded.contact_id, expires_at = excluded.expires_at
  `);
}

export async function insertMergeScoreChange(
  db: Db,
  workspaceId: string,
  contactId: string,
  previousScore: number,
  score: number,
) {
  await db.query(sql.typeAlias('void')`
    insert into score_changes (workspace_id, id, contact_id, reason, previous_score, score)
    values (${workspaceId}, ${newId('scoreChange')}, ${contactId}, 'merge', ${previousScore}, ${score})
  `);
}
