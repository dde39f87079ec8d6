// A public page's bare anonymousId (publishable key, no identity token) is only ever trusted to
// name an anonymous visitor: anyone holding the page's key can send any id, so an id that now
// belongs to a known person (an email, a phone, a linked Telegram chat, a browser subscribed with
// the identity token) must not reach them. Such a request goes on as a fresh anonymous visitor
// under a stand-in id of Switchboard's (unverifiedStandIn), the same on every request, and the
// answer is the one any anonymous visitor gets: it does not reveal that the id is taken. Reaching
// the known person needs the identity token.
import { unverifiedStandIn } from '../channels/index.ts';
import { ConflictError } from '../core/errors.ts';
import type { Tx } from '../db/pool.ts';
import { findAnonymousIdOwner } from './queries.ts';

/** Stand-ins are tried in turn: only the API (a merge, an edit) makes one identified, so few exist. */
const MAX_STAND_INS = 10;

/**
 * The anonymousId a public, unverified visitor acts under: `anonymousId` itself while it names no
 * contact or an anonymous one, else its first stand-in that does. Locks the anonymous contact it
 * names until the caller's transaction ends, and only that one: holding an identified contact too
 * would lock two rows out of id order, which a concurrent merge of the pair could deadlock with.
 */
export async function unverifiedVisitorAnonymousId(
  tx: Tx,
  workspaceId: string,
  anonymousId: string,
): Promise<string> {
  for (let generation = 0; generation <= MAX_STAND_INS; generation++) {
    const candidate = generation === 0 ? anonymousId : unverifiedStandIn(anonymousId, generation);
    if (await isFreeForVisitor(tx, workspaceId, candidate)) return candidate;
  }
  throw new ConflictError(
    'This anonymousId cannot be used without an identity token any more: give the visitor a new one.',
    'anonymous-id-unusable',
  );
}

/**
 * No contact has the id, or an anonymous one does (then locked, and checked again under the lock;
 * a contact merged away while this waited for it is looked up again, in its survivor).
 */
async function isFreeForVisitor(tx: Tx, workspaceId: string, anonymousId: string): Promise<boolean> {
  for (;;) {
    const owner = await findAnonymousIdOwner(tx, workspaceId, anonymousId);
    if (!owner) return true;
    if (owner.identified) return false;
    const locked = await findAnonymousIdOwner(tx, workspaceId, anonymousId, { lock: true });
    if (locked) return !locked.identified;
  }
}
