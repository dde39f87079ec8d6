// SQL for web push subscriptions (one row per browser, on its contact). Every query filters by
// workspace first. The endpoint is unique per workspace: a browser registered again, by whoever is
// signed in on it now, moves to that contact with its current keys. `verified` says whether the
// page proved who the visitor is (identity token): an unverified browser is sent to only while its
// contact is anonymous (identityQueries.ts).
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { newId } from '../../db/ids.ts';
import { type Db, sql } from '../../db/pool.ts';
import { identifiedContact } from '../identityQueries.ts';

export const PushSubscriptionRow = z.object({
  id: z.string(),
  contact_id: z.string(),
  endpoint: z.string(),
  p256dh: z.string(),
  auth: z.string(),
});
export type PushSubscriptionRow = z.infer<typeof PushSubscriptionRow>;

const columns = sql.fragment`id, contact_id, endpoint, p256dh, auth`;

export type NewPushSubscription = {
  contactId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  expiresAt: Date | null;
  userAgent: string | null;
  verified: boolean;
};

/**
 * Inserts or refreshes the browser's row. `changed` is true when the endpoint is new, now belongs
 * to another contact, or is now verified: the moments worth a `push.subscribed` (a page reload
 * re-posts the same one).
 */
export async function upsertPushSubscription(db: Db, workspaceId: string, s: NewPushSubscription) {
  return db.one(sql.type(PushSubscriptionRow.extend({ changed: z.boolean() }))`
    with previous as (
      select contact_id, verified from push_subscriptions
      where workspace_id = ${workspaceId} and endpoint = ${s.endpoint}
    )
    insert into push_subscriptions
      (workspace_id, id, contact_id, endpoint, p256dh, auth, expires_at, user_agent, verified)
    values (${workspaceId}, ${newId('pushSubscription')}, ${s.contactId}, ${s.endpoint}, ${s.p256dh},
      ${s.auth}, ${s.expiresAt?.toISOString() ?? null}, ${s.userAgent}, ${s.verified})
    on conflict (workspace_id, endpoint) do update
      set contact_id = excluded.contact_id, p256dh = excluded.p256dh, auth = excluded.auth,
          expires_at = excluded.expires_at, user_agent = excluded.user_agent, verified = excluded.verified,
          updated_at = now()
    returning ${columns},
      coalesce((select contact_id from previous) is distinct from ${s.contactId}
        or (${s.verified} and not (select verified from previous)), true) as changed
  `);
}

/** The contact a browser's endpoint is registered to, and whether with proof, if any. */
export async function findPushSubscriptionOwner(db: Db, workspaceId: string, endpoint: string) {
  return db.maybeOne(sql.type(z.object({ contact_id: z.string(), verified: z.boolean() }))`
    select contact_id, verified from push_subscriptions
    where workspace_id = ${workspaceId} and endpoint = ${endpoint}
  `);
}

/** The contact's sendable browsers: verified ones, and unverified ones while it is anonymous. */
export async function listPushSubscriptions(db: Db, workspaceId: string, contactId: string) {
  return db.any(sql.type(PushSubscriptionRow)`
    select s.id, s.contact_id, s.endpoint, s.p256dh, s.auth
    from push_subscriptions s
    join contacts c on c.workspace_id = s.workspace_id and c.id = s.contact_id
    where s.workspace_id = ${workspaceId} and s.contact_id = ${contactId}
      and ${sendablePushSubscription(sql.fragment`s`, sql.fragment`c`)}
    order by s.created_at, s.id
  `);
}

/** Whether the subscription `s` of contact `c` may be sent to (aliases of the enclosing query). */
export const sendablePushSubscription = (s: FragmentSqlToken, c: FragmentSqlToken) =>
  sql.fragment`(${s}.verified or not ${identifiedContact(c)})`;

/**
 * A merge made `contactId` identified, or it was: the browsers that never proved they are this
 * person's (stored on a bare anonymousId) are dropped rather than carried onto them.
 */
export async function deleteUnverifiedPushSubscriptionsOfIdentified(
  db: Db,
  workspaceId: string,
  contactId: string,
) {
  await db.query(sql.typeAlias('void')`
    delete from push_subscriptions s
    using contacts c
    where s.workspace_id = ${workspaceId} and s.contact_id = ${contactId} and not s.verified
      and c.workspace_id = s.workspace_id and c.id = s.contact_id and ${identifiedContact(sql.fragment`c`)}
  `);
}

/** Deletes the rows the push service said are gone; returns how many the contact has left. */
export async function deletePushSubscriptions(
  db: Db,
  workspaceId: string,
  contactId: string,
  ids: readonly string[],
): Promise<number> {
  return db.oneFirst(sql.type(z.object({ left: z.number().int() }))`
    with gone as (
      delete from push_subscriptions
      where workspace_id = ${workspaceId} and id = any(${sql.array(ids as string[], 'text')})
      returning id
    )
    select count(*)::int as left from push_subscriptions
    where workspace_id = ${workspaceId} and contact_id = ${contactId}
      and id <> all(${sql.array(ids as string[], 'text')})
  `);
}

export async function countWorkspacePushSubscriptions(db: Db, workspaceId: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number().int() }))`
    select count(*)::int as count from push_subscriptions where workspace_id = ${workspaceId}
  `);
}

export async function deleteWorkspacePushSubscriptions(db: Db, workspaceId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`delete from push_subscriptions where workspace_id = ${workspaceId}`);
}
