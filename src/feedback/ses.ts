// SES notifications (the `Message` of a verified SNS notification) as feedback events. Identity
// notifications say `notificationType`, configuration-set event publishing says `eventType`; the
// inner objects are the same. Our message id comes back as a message tag (event publishing) or in
// the original headers (when SES includes them); else `mail.messageId` is SES's id from the SMTP
// reply, which the message row keeps as its provider id.
import { FEEDBACK_MESSAGE_ID } from '../channels/index.ts';
import { type FeedbackEvent, type FeedbackKind, ourMessageId, record, text } from './events.ts';

function echoedId(mail: Record<string, unknown>): string | null {
  const tags = record(mail.tags)[FEEDBACK_MESSAGE_ID];
  const tagged = ourMessageId(Array.isArray(tags) ? tags[0] : tags);
  if (tagged) return tagged;
  const headers = Array.isArray(mail.headers) ? mail.headers.map(record) : [];
  const header = headers.find((h) => text(h.name)?.toLowerCase() === 'x-switchboard-message-id');
  return ourMessageId(header?.value);
}

function firstRecipient(list: unknown): string | null {
  return Array.isArray(list) ? text(record(list[0]).emailAddress, 320) : null;
}

function classify(type: string, notification: Record<string, unknown>) {
  const bounce = record(notification.bounce);
  const complaint = record(notification.complaint);
  const delivery = record(notification.delivery);
  if (type === 'Bounce') {
    const recipient = record(Array.isArray(bounce.bouncedRecipients) ? bounce.bouncedRecipients[0] : null);
    const kind: FeedbackKind = bounce.bounceType === 'Permanent' ? 'hard_bounce' : 'soft_bounce';
    const reason = [
      `${text(bounce.bounceType) ?? '?'}/${text(bounce.bounceSubType) ?? '?'}`,
      text(recipient.diagnosticCode),
    ]
      .filter(Boolean)
      .join(' ');
    return { kind, email: firstRecipient(bounce.bouncedRecipients), reason };
  }
  if (type === 'Complaint') {
    const reason = text(complaint.complaintFeedbackType);
    return { kind: 'complaint' as const, email: firstRecipient(complaint.complainedRecipients), reason };
  }
  if (type === 'Delivery') {
    const recipients = Array.isArray(delivery.recipients) ? delivery.recipients : [];
    return {
      kind: 'delivery' as const,
      email: text(recipients[0], 320),
      reason: text(delivery.smtpResponse),
    };
  }
  return { kind: null, email: null, reason: null };
}

/** One event per notification, its id the SNS MessageId (what SNS repeats when it redelivers). */
export function sesEvents(snsMessageId: string, message: string): FeedbackEvent[] {
  let notification: Record<string, unknown>;
  try {
    notification = record(JSON.parse(message));
  } catch {
    return [
      {
        eventId: snsMessageId,
        type: 'unreadable',
        kind: null,
        email: null,
        messageId: null,
        providerId: null,
        reason: null,
      },
    ];
  }
  const type = text(notification.notificationType) ?? text(notification.eventType) ?? 'unknown';
  const mail = record(notification.mail);
  return [
    {
      eventId: snsMessageId,
      type,
      ...classify(type, notification),
      messageId: echoedId(mail),
      providerId: text(mail.messageId, 200),
    },
  ];
}
