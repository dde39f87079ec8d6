// SendGrid's signed event webhook: an ECDSA P-256 signature (SHA-256, base64 DER) over the
// timestamp header followed by the exact body bytes, checked with the key the workspace gave; the
// body is an array of events. Our message id comes back as a unique arg (a top-level key); else
// `sg_message_id` starts with the id SendGrid's SMTP reply gave ("queued as <id>").
import { createPublicKey, verify } from 'node:crypto';
import { FEEDBACK_MESSAGE_ID } from '../channels/index.ts';
import { UnauthorizedError } from '../core/errors.ts';
import { type FeedbackEvent, type FeedbackKind, ourMessageId, record, text } from './events.ts';

export const SIGNATURE_HEADER = 'X-Twilio-Email-Event-Webhook-Signature';
export const TIMESTAMP_HEADER = 'X-Twilio-Email-Event-Webhook-Timestamp';

export function verifySendgrid(
  publicKey: string,
  rawBody: Buffer | null,
  header: (name: string) => string | undefined,
): void {
  const signature = header(SIGNATURE_HEADER);
  const timestamp = header(TIMESTAMP_HEADER);
  if (!signature || !timestamp)
    throw new UnauthorizedError(
      `Send ${SIGNATURE_HEADER} and ${TIMESTAMP_HEADER} (turn on the signed event webhook).`,
    );
  if (rawBody === null)
    throw new UnauthorizedError('The request body was not received as sent, so no signature can match it.');
  const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
  let valid = false;
  try {
    valid = verify(
      'sha256',
      Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]),
      key,
      Buffer.from(signature, 'base64'),
    );
  } catch {
    valid = false;
  }
  if (!valid)
    throw new UnauthorizedError(
      `The signature does not match: ${SIGNATURE_HEADER} must sign the timestamp and the raw body.`,
    );
}

function kindOf(event: Record<string, unknown>): FeedbackKind | null {
  switch (event.event) {
    case 'delivered':
      return 'delivery';
    case 'bounce':
      return event.type === 'blocked' ? 'soft_bounce' : 'hard_bounce';
    case 'blocked':
    case 'deferred':
      return 'soft_bounce';
    case 'spamreport':
      return 'complaint';
    default:
      return null;
  }
}

export function sendgridEvents(body: unknown[]): FeedbackEvent[] {
  return body.map(record).map((event) => ({
    eventId: text(event.sg_event_id, 200),
    type: text(event.event, 100) ?? 'unknown',
    kind: kindOf(event),
    email: text(event.email, 320),
    messageId: ourMessageId(event[FEEDBACK_MESSAGE_ID]),
    providerId: text(event.sg_message_id, 300)?.split('.')[0] ?? null,
    reason: text(event.reason) ?? text(event.response) ?? text(event.status),
  }));
}
