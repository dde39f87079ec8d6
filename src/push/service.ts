// Public web push: storing a browser's subscription on the visitor's contact, and recording the
// service worker's acknowledgements. A subscription is new (201) when its endpoint is new or now
// belongs to someone else: then the contact is found or made through the ingest pipeline, with
// the stored event `push.subscribed` (segments, triggers and scores see it: a welcome push is one
// campaign), the push opt-out is lifted and `push.subscribed` is emitted. The same browser posting
// again for the same visitor (a page load) only refreshes its keys (200).
import {
  findPushPublicKey,
  findPushSubscriptionContact,
  pushEndpointRefusal,
  upsertPushSubscription,
} from '../channels/index.ts';
import { findContact } from '../contacts/index.ts';
import type { Tx } from '../db/pool.ts';
import { ingestEvents } from '../events/index.ts';
import type { AppContext } from '../http/context.ts';
import { NotFoundError, ValidationError } from '../http/errors.ts';
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

function visitorOf(identity: Identity, anonymousId: string | undefined): Visitor {
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

/** Whether the endpoint is already registered to this very visitor's contact. */
async function registeredTo(tx: Tx, workspaceId: string, endpoint: string, visitor: Visitor) {
  const contactId = await findPushSubscriptionContact(tx, workspaceId, endpoint);
  const contact = contactId ? await findContact(tx, workspaceId, contactId) : null;
  if (!contact) return null;
  const same =
    ('email' in visitor && contact.email === visitor.email) ||
    ('contactId' in visitor && contact.id === visitor.contactId) ||
    ('anonymousId' in visitor && contact.anonymous_id === visitor.anonymousId);
  return same ? contact.id : null;
}

async function contactOf(tx: Tx, workspaceId: string, visitor: Visitor, endpoint: string): Promise<string> {
  const [result] = await ingestEvents(
    tx,
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
  const visitor = visitorOf(await verifyIdentity(app.db, workspaceId, body), body.anonymousId);
  return app.db.transaction(async (tx) => {
    const known = await registeredTo(tx, workspaceId, endpoint, visitor);
    const contactId = known ?? (await contactOf(tx, workspaceId, visitor, endpoint));
    const row = await upsertPushSubscription(tx, workspaceId, {
      contactId,
      endpoint,
      p256dh: keys.p256dh,
      auth: keys.auth,
      expiresAt: expirationTime ? new Date(expirationTime) : null,
      userAgent: userAgent?.slice(0, 500) ?? null,
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
