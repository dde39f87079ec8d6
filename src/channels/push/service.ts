// A workspace's web push channel: its VAPID key pair (made once, the private key sealed at rest)
// and the subject push services may contact. A PUT on an existing channel changes the subject
// and keeps the pair, because every browser subscription is bound to the public key: a new pair
// would silently orphan them all. Removing the channel removes the subscriptions with it.
import { NotFoundError } from '../../core/errors.ts';
import type { Db } from '../../db/pool.ts';
import { decryptSecret, encryptSecret } from '../../secrets/index.ts';
import { removeChannelConfig, saveChannelConfig } from '../configChanges.ts';
import { type ChannelConfigRow, findChannelConfig } from '../queries.ts';
import type { PutPushConfigBody } from './schemas.ts';
import { countWorkspacePushSubscriptions, deleteWorkspacePushSubscriptions } from './subscriptionQueries.ts';

export type PushSettings = { subject: string; publicKey: string };
export type Vapid = PushSettings & { privateKey: string };

const secretContext = (workspaceId: string) => `${workspaceId}:push:vapidPrivateKey`;

export const noPushChannel = () =>
  new NotFoundError('The push channel', 'This workspace has no push channel: PUT …/channels/push first.');

export async function putPushConfig(db: Db, workspaceId: string, body: PutPushConfigBody) {
  const stored = await findChannelConfig(db, workspaceId, 'push');
  if (stored) {
    const settings = { ...(stored.settings as PushSettings), subject: body.subject };
    return saveChannelConfig(db, { workspaceId, channel: 'push', settings, secrets: stored.secrets });
  }
  // Loaded when a key pair is made (and in send.ts when a message is sent), not at import.
  const { default: webpush } = await import('web-push');
  const pair = webpush.generateVAPIDKeys();
  return saveChannelConfig(db, {
    workspaceId,
    channel: 'push',
    settings: { subject: body.subject, publicKey: pair.publicKey } satisfies PushSettings,
    secrets: { vapidPrivateKey: encryptSecret(pair.privateKey, secretContext(workspaceId)) },
  });
}

export async function getPushConfigRow(db: Db, workspaceId: string): Promise<ChannelConfigRow> {
  const row = await findChannelConfig(db, workspaceId, 'push');
  if (!row) throw noPushChannel();
  return row;
}

/** What a page subscribes with (the public SDK reads it); null without a push channel. */
export async function findPushPublicKey(db: Db, workspaceId: string): Promise<string | null> {
  const row = await findChannelConfig(db, workspaceId, 'push');
  return row ? (row.settings as PushSettings).publicKey : null;
}

/** The API's view: subject, public key and how many browsers are subscribed. */
export async function presentPushConfig(db: Db, row: ChannelConfigRow) {
  const settings = row.settings as PushSettings;
  return {
    channel: 'push' as const,
    subject: settings.subject,
    publicKey: settings.publicKey,
    subscriptions: await countWorkspacePushSubscriptions(db, row.workspace_id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The subscriptions were made for this pair's public key: they go with it. */
export async function removePushConfig(db: Db, workspaceId: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await removeChannelConfig(tx, workspaceId, 'push'))) throw noPushChannel();
    await deleteWorkspacePushSubscriptions(tx, workspaceId);
  });
}

/** Opens the private key (throws SecretDecryptionError when the key that sealed it is gone). */
export function openVapid(row: ChannelConfigRow): Vapid {
  return {
    ...(row.settings as PushSettings),
    privateKey: decryptSecret(row.secrets.vapidPrivateKey, secretContext(row.workspace_id)),
  };
}
