// What other features use of channels: the registry (registry.ts) and the ChannelDefinition each
// channel implements, one `sendMessage` for any channel, and each workspace's configuration.
// Routes live in feature.ts, for the composition layer.
import type { AppContext } from '../core/context.ts';
import { CHANNEL_REGISTRY, channelNamed, type OutgoingMessage } from './registry.ts';
import type { SendOutcome } from './types.ts';

export { emailChannel } from './email/channel.ts';
export {
  FEEDBACK_PROVIDERS,
  type FeedbackEndpointRow,
  type FeedbackProvider,
  findFeedbackEndpointById,
} from './email/feedbackQueries.ts';
export { openPostmarkCredentials } from './email/feedbackService.ts';
export { classifySmtpError, FEEDBACK_MESSAGE_ID } from './email/send.ts';
export { type EmailSettings, getEmailConfigRow, toEmailConfig } from './email/service.ts';
export { DKIM_SIGNED_HEADERS } from './email/transport.ts';
export {
  isReservedAnonymousId,
  RESERVED_ANONYMOUS_ID_PREFIXES,
  RESERVED_ANONYMOUS_ID_RULE,
  telegramAnonymousId,
  unverifiedStandIn,
} from './identity.ts';
export { identifiedContact } from './identityQueries.ts';
export { pushChannel } from './push/channel.ts';
export { PUSH_ENDPOINT_MAX_LENGTH, pushEndpointRefusal } from './push/endpoint.ts';
export { PUSH_PAYLOAD_MAX_BYTES } from './push/send.ts';
export { findPushPublicKey } from './push/service.ts';
export {
  deleteUnverifiedPushSubscriptionsOfIdentified,
  findPushSubscriptionOwner,
  type NewPushSubscription,
  sendablePushSubscription,
  upsertPushSubscription,
} from './push/subscriptionQueries.ts';
export { type ChannelConfigRow, findChannelConfig } from './queries.ts';
export {
  type ChannelRates,
  channelRateDefaults,
  findChannelRates,
  noSendRate,
  reserveSendSlot,
  type SendSlot,
  setChannelRates,
} from './rateLimit.ts';
export {
  CHANNEL_EVENTS,
  CHANNEL_NAMES,
  CHANNEL_REGISTRY,
  CHANNEL_RENDERED,
  CHANNEL_STEPS,
  type ChannelName,
  channelNamed,
  isChannelName,
  type OutgoingMessage,
  RenderedContent,
} from './registry.ts';
export { HttpUrl, RequiredText } from './stepFields.ts';
export { describeTelegramError, GrammyError } from './telegram/api.ts';
export { sendTelegramText, telegramChannel } from './telegram/channel.ts';
export {
  isTelegramWebhookSecret,
  TELEGRAM_WEBHOOK_PATH,
  type TelegramSettings,
} from './telegram/service.ts';
export {
  type BuildKit,
  type Channel,
  type ChannelDefinition,
  type ChannelEffects,
  type EmailMessage,
  MessageTemplate,
  PUSH_URGENCIES,
  type PushMessage,
  type PushNotification,
  type PushUrgency,
  type SendContext,
  type SendFailure,
  type SendOutcome,
  type SendStage,
  type TelegramMessage,
  type TransactionalContent,
} from './types.ts';

/** Sends through the message's channel; a channel the workspace has not configured answers `permanent` at stage `config`. */
export function sendMessage(
  app: AppContext,
  workspaceId: string,
  message: OutgoingMessage,
): Promise<SendOutcome> {
  return channelNamed(message.channel).send(app, workspaceId, message);
}

/** Closes every pooled connection of every channel (graceful shutdown). */
export async function closeChannels(): Promise<void> {
  await Promise.all(CHANNEL_REGISTRY.map((channel) => channel.close()));
}
