// Who counts as identified, in SQL, for every query that must tell (the public visitor check, a
// merge's push subscriptions, push sends): a contact with an email or a phone, a linked Telegram
// chat, or a browser subscribed with an identity token. Anything else is an anonymous visitor,
// which a bare anonymousId from a page may reach. One definition, so the three cannot disagree.
import type { FragmentSqlToken } from 'slonik';
import { sql } from '../db/pool.ts';

/** True when the contact `c` (an alias of contacts in the enclosing query) is identified. */
export const identifiedContact = (c: FragmentSqlToken) => sql.fragment`(
  ${c}.email is not null or ${c}.phone is not null
  or exists (select 1 from telegram_chats t where t.workspace_id = ${c}.workspace_id and t.contact_id = ${c}.id)
  or exists (select 1 from push_subscriptions v
             where v.workspace_id = ${c}.workspace_id and v.contact_id = ${c}.id and v.verified))`;
