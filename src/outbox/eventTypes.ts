// The 26 outgoing event types a webhook endpoint can subscribe to: the `WebhookEventType` enum of /api/openapi: 25 and
// `contact.score_changed`, emitted whenever a lead score moves.
export const OUTGOING_EVENT_TYPES = [
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.merged',
  'contact.score_changed',
  'segment.entered',
  'segment.exited',
  'campaign.started',
  'campaign.completed',
  'campaign.contact.enrolled',
  'campaign.contact.completed',
  'message.sent',
  'message.delivered',
  'message.opened',
  'message.clicked',
  'message.bounced',
  'message.complained',
  'message.failed',
  'unsubscribe.email',
  'unsubscribe.push',
  'unsubscribe.telegram',
  'unsubscribe.all',
  'form.submitted',
  'push.subscribed',
  'push.clicked',
  'event.tracked',
] as const;

export type OutgoingEventType = (typeof OUTGOING_EVENT_TYPES)[number];
