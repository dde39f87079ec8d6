// What other features may use of messages: the flow engine makes a message per send step and
// delivers it; other features read subscription state and record opt-outs.

export { buildOutgoing, templateVariables } from './build.ts';
// Previews render a step as its message would be, with the same variables.
export { findDeliveryContext, reachColumns } from './contextQueries.ts';
export { deliverMessage } from './deliver.ts';
// Provider feedback (bounces, complaints, deliveries) applied to a message.
export {
  type FeedbackMessage,
  findFeedbackMessage,
  recordBounce,
  recordComplaint,
  recordDelivered,
} from './feedback.ts';
export { SEND_QUEUE } from './outcomes.ts';
export { acknowledgePush, type PushAck, resubscribeToPush } from './pushAck.ts';
export {
  CHANNELS,
  type Channel,
  MESSAGE_STATUSES,
  type MessageStatus,
  type MessageTemplate,
} from './rows.ts';
export { TrackingSwitches } from './schemas.ts';
export {
  type CampaignMessageInput,
  type CreateMessageInput,
  createCampaignMessages,
  createMessage,
  enqueueDelivery,
  putSubscriptions,
} from './service.ts';
export {
  ADDRESS_REFUSALS,
  findSuppression,
  isSubscribed,
  type OptOut,
  type OptOutReason,
  setSubscription,
  suppressionReason,
  UNSUBSCRIBED_FROM_ALL,
} from './subscriptionQueries.ts';
export { HIT_CLASSES, type HitClass, hitClass, insertMessageEvent, PROXY_REASON } from './timelineQueries.ts';
export { signUnsubscribeToken, unsubscribeUrl, verifyUnsubscribeToken } from './tokens.ts';
export {
  isWebUrl,
  signClickToken,
  signMessageToken,
  verifyClickToken,
  verifyMessageToken,
} from './trackingTokens.ts';
export { addTracking, type TrackingSwitches as TrackingSwitchValues } from './trackLinks.ts';
export { unsubscribeContact } from './unsubscribe.ts';
