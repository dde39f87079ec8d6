// Public web push: storing a browser's subscription on the visitor's contact, and recording the
// service worker's acknowledgements. A subscription is new (201) when its endpoint is new, now
// belongs to someone else, or is now verified: then the contact is found or made through the
// ingest pipeline, with the stored event `push.subscribed` (segments, triggers and scores see it: a
// welcome push is one campaign), the push opt-out is lifted and `push.subscribed` is emitted. The
// same browser posting again for the same visitor (a page load) only refreshes its keys (200).
// A browser with an identity token is stored verified on that contact; one with a bare anonymousId
// is stored unverified, and only ever on an anonymous visitor (unverifiedVisitorAnonymousId): the
// id may be anyone's guess, so it never reaches, opts in or writes the timeline of a known person.
import {
  findPushPublicKey,
  findPushSubscriptionOwner,
  pushEndpointRefusal,
  upsertPushSubscription,
} from '../channels/index.ts';
import { type ContactEffects, findContact, unverifiedVisitorAnonymousId } from '../contacts/index.ts';
import type { AppContext } from '../core/context.ts';
import { NotFoundError, ValidationError } from '../core/errors.ts';
import type { Tx } from '../db/pool.ts';
import { ingestEvents } from '../events/index.ts';
import { acknowledgePush, type PushAck, resubscribeToPush, verifyMessageToken } from '../messages/index.ts';
import { emit } from '../outbox/emit.ts';
import { type Identity, verifyIdentity } from '../publicKeys/index.ts';
import type { SubscribeBody } from './schemas.ts';

const noPushChannel = () =>
  new NotFoundError('The push channel', 'This workspace has no push channel: an ADMIN configures it first.');

export async function pushPublicKey(app: AppContext, workspaceId: string): Promise<string> {
  const key = await findPushPublicKey(app.db, workspaceId);
  if (!key) throw noPushChannel();
  return key;
}

type Visitor = { email: string } | { contactId: string } | { anonymousId: string };

/** Who the page says the visitor is; an anonymousId is checked in the transaction (visitorIn). */
function claimedVisitor(identity: Identity, anonymousId: string | undefined): Visitor {
  if (identity.kind === 'identified')
    return identity.email !== undefined ? { email: identity.email } : { contactId: identity.contactId };
  if (anonymousId !== undefined) return { anonymousId };
  throw new ValidationError([
    {
      path: 'body.anonymousId',
      message: 'is required when the visitor is not identified (email or contactId with identityToken)',
    },
  ]);
}

/** The visitor as stored: a bare anonymousId of a known person becomes a fresh anonymous one. */
async function visitorIn(tx: Tx, workspaceId: string, claimed: Visitor): Promise<Visitor> {
  if (!('anonymousId' in claimed)) return claimed;
  return { anonymousId: await unverifiedVisitorAnonymousId(tx, workspaceId, claimed.anonymousId) };
}

/**
 * Whether the endpoint is already registered to this very visitor's contact, as firmly as now: an
 * unverified browser posted again with the identity token is a new subscription of that person.
 */
async function registeredTo(tx: Tx, workspaceId: string, endpoint: string, visitor: Visitor) {
  const owner = await findPushSubscriptionOwner(tx, workspaceId, endpoint);
  const contact = owner ? await findContact(tx, workspaceId, owner.contact_id) : null;
  if (!owner || !contact || (!owner.verified && !('anonymousId' in visitor))) return null;
  const same =
    ('email' in visitor && contact.email === visitor.email) ||
    ('contactId' in visitor && contact.id === visitor.contactId) ||
    ('anonymousId' in visitor && contact.anonymous_id === visitor.anonymousId);
  return same ? contact.id : null;
}

async function contactOf(
  tx: Tx,
  effects: ContactEffects,
  workspaceId: string,
  visitor: Visitor,
  endpoint: string,
): Promise<string> {
  const [result] = await ingestEvents(
    tx,
    effects,
    workspaceId,
    [{ type: 'push.subscribed', ...visitor, metadata: { pushService: new URL(endpoint).host } }],
    { source: 'api' },
  );
  const contact = result.event.contact;
  if (!contact) throw new Error('push.subscribed was stored without a contact');
  return contact.id;
}

export async function subscribe(
  app: AppContext,
  workspaceId: string,
  body: SubscribeBody,
  userAgent: string | null,
): Promise<{ created: boolean }> {
  const { endpoint, keys, expirationTime } = body.subscription;
  const refusal = pushEndpointRefusal(app.config, endpoint);
  if (refusal) throw new ValidationError([{ path: 'body.subscription.endpoint', message: refusal }]);
  await pushPublicKey(app, workspaceId);
  const claimed = claimedVisitor(await verifyIdentity(app.db, workspaceId, body), body.anonymousId);
  return app.db.transaction(async (tx) => {
    const visitor = await visitorIn(tx, workspaceId, claimed);
    const known = await registeredTo(tx, workspaceId, endpoint, visitor);
    const contactId = known ?? (await contactOf(tx, app.effects.contacts, workspaceId, visitor, endpoint));
    const row = await upsertPushSubscription(tx, workspaceId, {
      contactId,
      endpoint,
      p256dh: keys.p256dh,
      auth: keys.auth,
      expiresAt: expirationTime ? new Date(expirationTime) : null,
      userAgent: userAgent?.slice(0, 500) ?? null,
      verified: !('anonymousId' in visitor),
    });
    if (!row.changed) return { created: false };
    await resubscribeToPush(tx, workspaceId, contactId);
    await emit(tx, { workspaceId, type: 'push.subscribed', data: { contactId, endpoint } });
    return { created: true };
  });
}

/** A forged or unknown token, or a message that is not a sent push, is "not found". */
export async function acknowledge(app: AppContext, token: string, ack: PushAck): Promise<void> {
  const messageId = verifyMessageToken(app.config, 'push', token);
  if (!messageId || !(await acknowledgePush(app.db, messageId, ack))) {
    throw new NotFoundError('Push message', 'No sent push message has this token.');
  }
}
