// What other features use of channels: the Channel boundary, one `sendMessage` for any channel,
// and each workspace's configuration. Routes live in feature.ts, for the composition layer.
import type { AppContext } from '../http/context.ts';
import { emailChannel } from './email/channel.ts';
import { pushChannel } from './push/channel.ts';
import type { Channel, OutgoingMessage, SendOutcome } from './types.ts';

export { emailChannel } from './email/channel.ts';
export { classifySmtpError } from './email/send.ts';
export { type EmailSettings, getEmailConfigRow, toEmailConfig } from './email/service.ts';
export { DKIM_SIGNED_HEADERS } from './email/transport.ts';
export { pushChannel } from './push/channel.ts';
export { PUSH_ENDPOINT_MAX_LENGTH, pushEndpointRefusal } from './push/endpoint.ts';
export { PUSH_PAYLOAD_MAX_BYTES } from './push/send.ts';
export { findPushPublicKey } from './push/service.ts';
export {
  findPushSubscriptionContact,
  hasPushSubscription,
  type NewPushSubscription,
  upsertPushSubscription,
} from './push/subscriptionQueries.ts';
export { type ChannelConfigRow, type ChannelName, findChannelConfig } from './queries.ts';
export type {
  Channel,
  EmailMessage,
  OutgoingMessage,
  PushMessage,
  PushNotification,
  PushUrgency,
  SendFailure,
  SendOutcome,
  SendStage,
} from './types.ts';

const channels: {
  [name in OutgoingMessage['channel']]: Channel<Extract<OutgoingMessage, { channel: name }>>;
} = {
  email: emailChannel,
  push: pushChannel,
};

/** Sends through the message's channel; a channel the workspace has not configured answers `permanent` at stage `config`. */
export function sendMessage(
  app: AppContext,
  workspaceId: string,
  message: OutgoingMessage,
): Promise<SendOutcome> {
  return (channels[message.channel] as Channel).send(app, workspaceId, message);
}

/** Closes every pooled connection of every channel (graceful shutdown). */
export async function closeChannels(): Promise<void> {
  await Promise.all(Object.values(channels).map((channel) => channel.close()));
}
